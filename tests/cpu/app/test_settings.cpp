// Settings persist as JSON in the XDG config directory and survive bad files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "ui/settings.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

fs::path tempDir() {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() / ("cudalab-settings-" + std::to_string(rd()));
  fs::create_directories(p);
  return p;
}

TEST(Settings, ConfigDirFollowsXdg) {
  EXPECT_EQ(configDirFrom("/x/config", "/home/ann"), "/x/config/cudalab");
  EXPECT_EQ(configDirFrom("", "/home/ann"), "/home/ann/.config/cudalab");
  EXPECT_EQ(configDirFrom(nullptr, "/home/ann"), "/home/ann/.config/cudalab");
  EXPECT_EQ(configDirFrom("relative/path", "/home/ann"), "/home/ann/.config/cudalab")
      << "the XDG spec says relative paths are ignored";
}

TEST(Settings, RoundTrip) {
  const fs::path dir = tempDir();
  const std::string path = (dir / "sub" / "settings.json").string();
  Settings s;
  s.theme = "light";
  s.uiScale = 2.0f;
  s.window = {10, 20, 1920, 1080, true};
  s.sidebarWidth = 350;
  s.lesson = "device";
  s.exportScale = 1;
  s.exportTransparent = true;
  s.exportDir = "/tmp/figs";
  ASSERT_TRUE(saveSettings(s, path).ok());
  Status problem;
  Settings r = loadSettings(path, &problem);
  EXPECT_TRUE(problem.ok());
  EXPECT_EQ(r.theme, "light");
  EXPECT_FLOAT_EQ(r.uiScale, 2.0f);
  EXPECT_EQ(r.window.x, 10);
  EXPECT_EQ(r.window.width, 1920);
  EXPECT_TRUE(r.window.maximized);
  EXPECT_FLOAT_EQ(r.sidebarWidth, 350);
  EXPECT_EQ(r.exportScale, 1);
  EXPECT_TRUE(r.exportTransparent);
  EXPECT_EQ(r.exportDir, "/tmp/figs");
  fs::remove_all(dir);
}

TEST(Settings, MissingFileGivesDefaultsWithoutComplaint) {
  Status problem;
  Settings s = loadSettings("/nonexistent/cudalab/settings.json", &problem);
  EXPECT_TRUE(problem.ok());
  EXPECT_EQ(s.theme, "dark");
  EXPECT_FLOAT_EQ(s.uiScale, 1.0f);
}

TEST(Settings, MalformedFileGivesDefaultsAndSaysWhy) {
  const fs::path dir = tempDir();
  const std::string path = (dir / "settings.json").string();
  std::ofstream(path) << "{ this is not json";
  Status problem;
  Settings s = loadSettings(path, &problem);
  EXPECT_FALSE(problem.ok());
  EXPECT_NE(problem.message().find(path), std::string::npos);
  EXPECT_EQ(s.theme, "dark");
  std::ofstream(path) << R"({"theme": 5})";  // wrong type
  loadSettings(path, &problem);
  EXPECT_FALSE(problem.ok());
  fs::remove_all(dir);
}

TEST(Settings, OutOfRangeValuesAreClamped) {
  Settings s;
  s.theme = "neon";
  s.uiScale = 40;
  s.window.width = 5;
  s.sidebarWidth = NAN;
  s.exportScale = 9;
  sanitize(s);
  EXPECT_EQ(s.theme, "dark");
  EXPECT_FLOAT_EQ(s.uiScale, Settings::kMaxScale);
  EXPECT_GE(s.window.width, 640);
  EXPECT_FLOAT_EQ(s.sidebarWidth, 300);
  EXPECT_EQ(s.exportScale, 2);
}

}  // namespace
}  // namespace cudalab
