// RGBA8 images: what the renderer reads back and what figure export writes.
//
//   Image img = ...;                       // rows top to bottom
//   Status s = writePng(img, "fig.png");   // a Status with a sentence if the file cannot be
//   written
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace cudalab {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4 bytes, first row at the top

  bool empty() const { return width <= 0 || height <= 0; }
};

struct PixelRect {
  int x = 0, y = 0, w = 0, h = 0;
};

// Flips rows in place (OpenGL reads the bottom row first).
void flipVertically(Image& img);
// The part of `img` inside `r`, clipped to the image; empty when they do not overlap.
Image crop(const Image& img, PixelRect r);
// Number of distinct colours, counted up to `limit` (a blank render has 1).
int distinctColours(const Image& img, int limit = 1 << 16);

Status writePng(const Image& img, const std::string& path);
Result<Image> readPng(const std::string& path);

}  // namespace cudalab
