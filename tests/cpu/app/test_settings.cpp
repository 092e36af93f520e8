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
  s.presentationScale = 2.5f;
  s.window = {10, 20, 1920, 1080, true};
  s.sidebarWidth = 350;
  s.sidebarCollapsed = true;
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
  EXPECT_FLOAT_EQ(r.presentationScale, 2.5f);
  EXPECT_EQ(r.window.x, 10);
  EXPECT_EQ(r.window.width, 1920);
  EXPECT_TRUE(r.window.maximized);
  EXPECT_FLOAT_EQ(r.sidebarWidth, 350);
  EXPECT_TRUE(r.sidebarCollapsed);
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
  s.presentationScale = NAN;
  s.window.width = 5;
  s.sidebarWidth = NAN;
  s.exportScale = 9;
  sanitize(s);
  EXPECT_EQ(s.theme, "dark");
  EXPECT_FLOAT_EQ(s.uiScale, Settings::kMaxScale);
  EXPECT_FLOAT_EQ(s.presentationScale, 2.0f);
  EXPECT_GE(s.window.width, 640);
  EXPECT_FLOAT_EQ(s.sidebarWidth, 300);
  EXPECT_EQ(s.exportScale, 2);
}

// A file cut short by a crash or a full disk, a hand edit with the wrong types, NaN (not JSON),
// numbers beyond any int, a directory where the file should be: each gives a sentence naming the
// file and a usable Settings, never an exception.
TEST(Settings, CorruptFilesGiveDefaultsAndASentence) {
  const fs::path dir = tempDir();
  const std::string path = (dir / "settings.json").string();
  Settings good;
  good.theme = "light";
  good.uiScale = 2;
  ASSERT_TRUE(saveSettings(good, path).ok());
  std::string whole;
  {
    std::ifstream in(path);
    whole.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::mt19937 rng(std::random_device{}());
  for (int i = 0; i < 20; ++i) {  // truncated at random places
    const size_t cut = std::uniform_int_distribution<size_t>(0, whole.size() - 2)(rng);
    std::ofstream(path, std::ios::trunc) << whole.substr(0, cut);
    Status problem;
    Settings s = loadSettings(path, &problem);
    EXPECT_FALSE(problem.ok()) << "cut at " << cut;
    EXPECT_NE(problem.message().find(path), std::string::npos);
    EXPECT_TRUE(s.theme == "dark" || s.theme == "light");
    EXPECT_GE(s.uiScale, Settings::kMinScale);
  }
  const char* bad[] = {
      R"({"ui_scale": NaN})",                      // not JSON at all
      R"([1, 2, 3])",                              // JSON, not an object
      R"({"ui_scale": "big", "theme": "light"})",  // one field of the wrong type
      R"({"window": {"width": 1e300, "x": -1e300}, "theme": "light"})",  // beyond any int
      R"({"window": 7, "theme": "light"})",
      R"({"ui_scale": 1e38, "theme": "light"})",  // a float, but no usable scale
      R"({"export_scale": true, "theme": "light"})",
  };
  for (const char* text : bad) {
    std::ofstream(path, std::ios::trunc) << text;
    Status problem;
    Settings s = loadSettings(path, &problem);
    EXPECT_FALSE(problem.ok()) << text;
    EXPECT_GE(s.window.width, 640) << text;
    EXPECT_LE(s.window.x, 16384) << text;
    EXPECT_GE(s.window.x, -16384) << text;
    EXPECT_LE(s.uiScale, Settings::kMaxScale) << text;
    EXPECT_GE(s.uiScale, Settings::kMinScale) << text;
    // A bad field costs only itself: the good one beside it is kept.
    if (std::string(text).find("\"theme\": \"light\"") != std::string::npos) {
      EXPECT_EQ(s.theme, "light") << text;
    }
  }
  fs::remove(path);
  fs::create_directories(path);  // a directory where the file should be
  Status problem;
  loadSettings(path, &problem);
  EXPECT_FALSE(problem.ok());
  fs::remove_all(dir);
}

TEST(Settings, AnUnwritablePlaceGivesASentence) {
  const fs::path dir = tempDir();
  const fs::path blocker = dir / "file";
  std::ofstream(blocker) << "x";  // a file where the settings' folder should be: even root fails
  const Status s = saveSettings(Settings{}, (blocker / "cudalab" / "settings.json").string());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("settings"), std::string::npos) << s.message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cudalab
