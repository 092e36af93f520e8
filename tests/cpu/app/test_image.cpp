// Images: cropping, flipping, counting colours, and PNG files written then read back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "platform/image.hpp"

namespace cudalab {
namespace {

Image randomImage(int w, int h, unsigned seed) {
  std::mt19937 rng(seed);
  Image img{w, h, std::vector<std::uint8_t>(static_cast<size_t>(w) * h * 4)};
  for (auto& b : img.rgba)
    b = static_cast<std::uint8_t>(rng());
  return img;
}

TEST(Image, CropCopiesExactlyTheRectangleAndClips) {
  Image img = randomImage(37, 23, std::random_device{}());
  Image c = crop(img, {5, 3, 10, 7});
  ASSERT_EQ(c.width, 10);
  ASSERT_EQ(c.height, 7);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 10; ++x)
      for (int k = 0; k < 4; ++k)
        ASSERT_EQ(c.rgba[(y * 10 + x) * 4 + k], img.rgba[((y + 3) * 37 + x + 5) * 4 + k]);
  Image clipped = crop(img, {30, 20, 100, 100});
  EXPECT_EQ(clipped.width, 7);
  EXPECT_EQ(clipped.height, 3);
  EXPECT_TRUE(crop(img, {50, 50, 5, 5}).empty());
}

TEST(Image, FlipTwiceIsIdentityAndFlipSwapsRows) {
  Image img = randomImage(8, 5, std::random_device{}());
  Image f = img;
  flipVertically(f);
  for (int x = 0; x < 8 * 4; ++x)
    EXPECT_EQ(f.rgba[x], img.rgba[4 * 8 * 4 + x]);
  flipVertically(f);
  EXPECT_EQ(f.rgba, img.rgba);
}

TEST(Image, DistinctColours) {
  Image blank{4, 4, std::vector<std::uint8_t>(64, 7)};
  EXPECT_EQ(distinctColours(blank), 1);
  blank.rgba[0] = 8;
  EXPECT_EQ(distinctColours(blank), 2);
}

TEST(Image, PngRoundTripAndErrors) {
  Image img = randomImage(19, 11, std::random_device{}());
  const auto path = std::filesystem::temp_directory_path() / "cudalab-test-image.png";
  ASSERT_TRUE(writePng(img, path.string()).ok());
  Result<Image> back = readPng(path.string());
  ASSERT_TRUE(back.ok()) << back.status().sentence();
  EXPECT_EQ(back->width, 19);
  EXPECT_EQ(back->height, 11);
  EXPECT_EQ(back->rgba, img.rgba);
  std::filesystem::remove(path);
  EXPECT_FALSE(writePng(img, "/nonexistent-dir/x.png").ok());
  EXPECT_FALSE(writePng(Image{}, path.string()).ok());
  EXPECT_FALSE(readPng("/nonexistent-dir/x.png").ok());
}

// A picture file that cannot be read is said in the app's words, never stb's ("can't fopen",
// "unknown image type", "too large").
TEST(Image, PictureFilesThatCannotBeReadAreSaidInTheAppsWords) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "cudalab-bad-pictures";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto said = [](const std::string& path) {
    Result<Image> r = readPng(path);
    EXPECT_FALSE(r.ok()) << path;
    return r ? std::string() : r.status().sentence();
  };
  EXPECT_NE(said((dir / "missing.png").string()).find("There is no file"), std::string::npos);
  EXPECT_NE(said(dir.string()).find("is a folder"), std::string::npos);
  std::ofstream((dir / "empty.png").string()).close();
  EXPECT_NE(said((dir / "empty.png").string()).find("is empty (0 bytes)"), std::string::npos);
  std::ofstream((dir / "notes.png").string()) << "not a picture at all, only words";
  EXPECT_NE(said((dir / "notes.png").string()).find("is not a picture cudalab can read"),
            std::string::npos);
  // A PNG header claiming 20000 x 10 pixels.
  const unsigned char header[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0,    0, 0,
                                  13,   'I', 'H', 'D', 'R',  0,    0,    0x4e, 0x20, 0, 0,
                                  0,    10,  8,   6,   0,    0,    0,    0,    0,    0, 0};
  std::ofstream((dir / "huge.png").string(), std::ios::binary)
      .write(reinterpret_cast<const char*>(header), sizeof header);
  const std::string huge = said((dir / "huge.png").string());
  EXPECT_NE(huge.find("20000 x 10 pixels"), std::string::npos) << huge;
  for (const char* stb : {"can't fopen", "unknown image type", "too large"})
    for (const std::string& s : {said(dir.string()), huge})
      EXPECT_EQ(s.find(stb), std::string::npos) << s;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cudalab
