#include "ui/settings.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/i18n.hpp"

namespace cudalab {

namespace fs = std::filesystem;

void sanitize(Settings& s) {
  if (s.theme != "dark" && s.theme != "light") s.theme = "dark";
  if (!(s.uiScale >= Settings::kMinScale)) s.uiScale = 1.0f;  // also catches NaN
  s.uiScale = std::min(s.uiScale, Settings::kMaxScale);
  if (!(s.presentationScale >= Settings::kMinScale)) s.presentationScale = 2.0f;
  s.presentationScale = std::min(s.presentationScale, Settings::kMaxScale);
  s.window.width = std::clamp(s.window.width, 640, 16384);
  s.window.height = std::clamp(s.window.height, 400, 16384);
  // A position far off every screen would open an invisible window.
  s.window.x = std::clamp(s.window.x, -16384, 16384);
  s.window.y = std::clamp(s.window.y, -16384, 16384);
  if (!(s.sidebarWidth >= 160.0f)) s.sidebarWidth = 300.0f;
  s.sidebarWidth = std::min(s.sidebarWidth, 900.0f);
  s.exportScale = std::clamp(s.exportScale, 1, 2);
  if (!s.language.empty() && !findLanguage(s.language)) s.language.clear();
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

namespace {

// Reads one field into `into` when it is there and usable; otherwise keeps the default and notes
// the key, so one bad field costs only itself.
template <class T>
void field(const nlohmann::json& obj, const char* key, T& into, std::vector<std::string>& bad) {
  if (!obj.contains(key)) return;
  const nlohmann::json& v = obj[key];
  if constexpr (std::is_same_v<T, bool>) {
    if (v.is_boolean()) return void(into = v.get<bool>());
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (v.is_string() && v.get_ref<const std::string&>().size() < 4096)
      return void(into = v.get<std::string>());
  } else if (v.is_number()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
        d <= static_cast<double>(std::numeric_limits<T>::max()))
      return void(into = static_cast<T>(d));
  }
  bad.emplace_back(key);
}

}  // namespace

Settings loadSettings(const std::string& path, Status* problem) {
  Settings s;
  std::error_code ec;
  if (!fs::exists(path, ec)) return s;  // first run
  std::ifstream in(path);
  // The settings are read before the language is known: each problem keeps its sentence's
  // format and values (Status::errorf), and the status bar translates it when it shows it.
  auto refuse = [&](const char* format, std::vector<std::string> values) {
    if (problem) *problem = Status::errorf(format, std::move(values));
    return Settings{};
  };
  if (!in || fs::is_directory(path, ec))
    return refuse(
        N_("Settings in %s could not be read (it is not a readable file); using the defaults."),
        {path});
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    // The parser's own words (where the JSON breaks) stay as it says them.
    return refuse(N_("Settings in %s could not be read (%s); using the defaults."),
                  {path, e.what()});
  }
  if (!j.is_object())
    return refuse(N_("Settings in %s could not be read (it does not hold a JSON object); using "
                     "the defaults."),
                  {path});
  std::vector<std::string> bad;
  field(j, "theme", s.theme, bad);
  field(j, "ui_scale", s.uiScale, bad);
  field(j, "presentation_scale", s.presentationScale, bad);
  field(j, "sidebar_width", s.sidebarWidth, bad);
  field(j, "sidebar_collapsed", s.sidebarCollapsed, bad);
  field(j, "language", s.language, bad);
  field(j, "lesson", s.lesson, bad);
  field(j, "export_scale", s.exportScale, bad);
  field(j, "export_transparent", s.exportTransparent, bad);
  field(j, "export_dir", s.exportDir, bad);
  if (j.contains("window")) {
    if (const nlohmann::json& w = j["window"]; w.is_object()) {
      field(w, "x", s.window.x, bad);
      field(w, "y", s.window.y, bad);
      field(w, "width", s.window.width, bad);
      field(w, "height", s.window.height, bad);
      field(w, "maximized", s.window.maximized, bad);
    } else {
      bad.emplace_back("window");
    }
  }
  const Settings before = s;
  sanitize(s);
  // Values of the right type but outside their range were clamped: say so too.
  if (s.uiScale != before.uiScale) bad.emplace_back("ui_scale");
  if (s.presentationScale != before.presentationScale) bad.emplace_back("presentation_scale");
  if (s.theme != before.theme) bad.emplace_back("theme");
  if (s.language != before.language) bad.emplace_back("language");
  if (!bad.empty() && problem) {
    std::string keys;
    for (const std::string& k : bad)
      keys += (keys.empty() ? "" : ", ") + k;
    // The keys are the file's own names (ui_scale, theme), not translated.
    *problem = Status::errorf(
        bad.size() == 1 ? N_("Settings in %s: %s was not usable; the defaults are used for it.")
                        : N_("Settings in %s: %s were not usable; the defaults are used for them."),
        {path, keys});
  }
  return s;
}

Status saveSettings(const Settings& s, const std::string& path) {
  nlohmann::json j = {
      {"theme", s.theme},
      {"ui_scale", s.uiScale},
      {"presentation_scale", s.presentationScale},
      {"sidebar_width", s.sidebarWidth},
      {"sidebar_collapsed", s.sidebarCollapsed},
      {"language", s.language},
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
    if (!out) return Status::error(trf("Could not save settings to %s.", path.c_str()));
    out << j.dump(2) << "\n";
    if (!out) return Status::error(trf("Could not save settings to %s.", path.c_str()));
  }
  fs::rename(tmp, path, ec);  // atomic: a crash never leaves half a file
  if (ec)
    return Status::error(
        trf("Could not save settings to %s: %s.", path.c_str(), ec.message().c_str()));
  return {};
}

}  // namespace cudalab
