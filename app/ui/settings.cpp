#include "ui/settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace cudalab {

namespace fs = std::filesystem;

void sanitize(Settings& s) {
  if (s.theme != "dark" && s.theme != "light") s.theme = "dark";
  if (!(s.uiScale >= Settings::kMinScale)) s.uiScale = 1.0f;  // also catches NaN
  s.uiScale = std::min(s.uiScale, Settings::kMaxScale);
  s.window.width = std::clamp(s.window.width, 640, 16384);
  s.window.height = std::clamp(s.window.height, 400, 16384);
  if (!(s.sidebarWidth >= 160.0f)) s.sidebarWidth = 300.0f;
  s.sidebarWidth = std::min(s.sidebarWidth, 900.0f);
  s.exportScale = std::clamp(s.exportScale, 1, 2);
}

std::string configDirFrom(const char* xdg, const char* home) {
  if (xdg && *xdg && xdg[0] == '/') return (fs::path(xdg) / "cudalab").string();
  if (home && *home) return (fs::path(home) / ".config" / "cudalab").string();
  return (fs::temp_directory_path() / "cudalab-config").string();
}

std::string settingsPath() {
  return (fs::path(configDirFrom(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME"))) /
          "settings.json")
      .string();
}

std::string defaultExportDir() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return fs::current_path().string();
  return (fs::path(home) / "Pictures" / "cudalab").string();
}

Settings loadSettings(const std::string& path, Status* problem) {
  Settings s;
  std::ifstream in(path);
  if (!in) return s;  // first run
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    s.theme = j.value("theme", s.theme);
    s.uiScale = j.value("ui_scale", s.uiScale);
    s.sidebarWidth = j.value("sidebar_width", s.sidebarWidth);
    s.lesson = j.value("lesson", s.lesson);
    s.exportScale = j.value("export_scale", s.exportScale);
    s.exportTransparent = j.value("export_transparent", s.exportTransparent);
    s.exportDir = j.value("export_dir", s.exportDir);
    if (j.contains("window")) {
      const auto& w = j["window"];
      s.window.x = w.value("x", s.window.x);
      s.window.y = w.value("y", s.window.y);
      s.window.width = w.value("width", s.window.width);
      s.window.height = w.value("height", s.window.height);
      s.window.maximized = w.value("maximized", s.window.maximized);
    }
  } catch (const std::exception& e) {
    if (problem)
      *problem = Status::error("Settings in " + path + " could not be read (" + e.what() +
                               "); using the defaults.");
    s = Settings{};
  }
  sanitize(s);
  return s;
}

Status saveSettings(const Settings& s, const std::string& path) {
  nlohmann::json j = {
      {"theme", s.theme},
      {"ui_scale", s.uiScale},
      {"sidebar_width", s.sidebarWidth},
      {"lesson", s.lesson},
      {"export_scale", s.exportScale},
      {"export_transparent", s.exportTransparent},
      {"export_dir", s.exportDir},
      {"window",
       {{"x", s.window.x},
        {"y", s.window.y},
        {"width", s.window.width},
        {"height", s.window.height},
        {"maximized", s.window.maximized}}},
  };
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) return Status::error("Could not save settings to " + path + ".");
    out << j.dump(2) << "\n";
    if (!out) return Status::error("Could not save settings to " + path + ".");
  }
  fs::rename(tmp, path, ec);  // atomic: a crash never leaves half a file
  if (ec) return Status::error("Could not save settings to " + path + ": " + ec.message() + ".");
  return {};
}

}  // namespace cudalab
