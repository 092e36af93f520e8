// User settings that persist between runs: theme, UI scale, window geometry, sidebar width, the
// last lesson and figure-export preferences. Stored as JSON in the user's config directory
// ($XDG_CONFIG_HOME/cudalab/settings.json, else ~/.config/cudalab/settings.json), never in the
// working directory. Headless runs neither read nor write it, so figures are reproducible.
//
//   Status problem;
//   Settings s = loadSettings(settingsPath(), &problem);  // defaults (and a reason) if unreadable
//   saveSettings(s, settingsPath());
#pragma once

#include <string>

#include "common/status.hpp"
#include "platform/glfw_window.hpp"

namespace cudalab {

struct Settings {
  std::string theme = "dark";      // "dark" or "light"
  float uiScale = 1.0f;            // 1 = normal, 2 and more = projector
  float presentationScale = 2.0f;  // the UI scale of presentation mode (F5)
  WindowGeometry window;
  float sidebarWidth = 300.0f;    // in unscaled pixels
  bool sidebarCollapsed = false;  // a narrow strip (View > Sidebar, Ctrl+B)
  std::string lesson = "device";
  int exportScale = 2;  // pixel scale of exported figures: 1 or 2
  bool exportTransparent = false;
  std::string exportDir;  // empty: defaultExportDir()
  std::string language;   // "en", "ko", "zh_CN", "fr"; empty: the system's (core/i18n.hpp)

  bool operator==(const Settings&) const = default;

  static constexpr float kMinScale = 0.75f;
  static constexpr float kMaxScale = 3.0f;
};

// Clamps every field into its valid range (a hand-edited file cannot break the app).
void sanitize(Settings& s);

// The config directory from the environment's values (either may be null or empty).
std::string configDirFrom(const char* xdgConfigHome, const char* home);
std::string settingsPath();  // from the real environment
// Where figures go unless the user chose another folder: ~/Pictures/cudalab (or ./ without HOME).
std::string defaultExportDir();

// Missing file: the defaults and ok. Unreadable or malformed file: the defaults and a Status saying
// why (the app shows it and goes on).
Settings loadSettings(const std::string& path, Status* problem);
Status saveSettings(const Settings& s, const std::string& path);

}  // namespace cudalab
