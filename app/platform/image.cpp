#include "platform/image.hpp"

#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "common/translatable.hpp"

namespace cudalab {

void flipVertically(Image& img) {
  const size_t row = static_cast<size_t>(img.width) * 4;
  std::vector<std::uint8_t> tmp(row);
  for (int y = 0; y < img.height / 2; ++y) {
    std::uint8_t* a = img.rgba.data() + row * static_cast<size_t>(y);
    std::uint8_t* b = img.rgba.data() + row * static_cast<size_t>(img.height - 1 - y);
    std::memcpy(tmp.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, tmp.data(), row);
  }
}

Image crop(const Image& img, PixelRect r) {
  const int x0 = std::clamp(r.x, 0, img.width), y0 = std::clamp(r.y, 0, img.height);
  const int x1 = std::clamp(r.x + r.w, 0, img.width), y1 = std::clamp(r.y + r.h, 0, img.height);
  Image out;
  if (x1 <= x0 || y1 <= y0) return out;
  out.width = x1 - x0;
  out.height = y1 - y0;
  out.rgba.resize(static_cast<size_t>(out.width) * out.height * 4);
  for (int y = 0; y < out.height; ++y) {
    const std::uint8_t* src = img.rgba.data() + (static_cast<size_t>(y0 + y) * img.width + x0) * 4;
    std::memcpy(out.rgba.data() + static_cast<size_t>(y) * out.width * 4, src,
                static_cast<size_t>(out.width) * 4);
  }
  return out;
}

int distinctColours(const Image& img, int limit) {
  std::unordered_set<std::uint32_t> seen;
  const size_t n = static_cast<size_t>(img.width) * img.height;
  for (size_t i = 0; i < n && static_cast<int>(seen.size()) < limit; ++i) {
    std::uint32_t c;
    std::memcpy(&c, img.rgba.data() + i * 4, 4);
    seen.insert(c);
  }
  return static_cast<int>(seen.size());
}

Status writePng(const Image& img, const std::string& path) {
  if (img.empty()) return Status::error("There is nothing to save: the image is empty.");
  errno = 0;
  if (!stbi_write_png(path.c_str(), img.width, img.height, 4, img.rgba.data(), img.width * 4)) {
    return Status::error("Could not write " + path + ": " +
                         (errno ? std::strerror(errno) : "the PNG encoder failed") + ".");
  }
  return {};
}

Result<Image> readPng(const std::string& path) {
  // Said for a learner who typed a path, in the app's words (stb's are "can't fopen", "unknown
  // image type", "too large").
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st))
    return Status::errorf(N_("There is no file %s: check the name and the folder."), {path});
  if (std::filesystem::is_directory(st))
    return Status::errorf(N_("%s is a folder: choose a picture file in it."), {path});
  if (std::filesystem::file_size(path, ec) == 0 && !ec)
    return Status::errorf(N_("%s is empty (0 bytes): it holds no picture."), {path});
  if (FILE* f = std::fopen(path.c_str(), "rb"))
    std::fclose(f);
  else
    return Status::errorf(N_("%s cannot be opened: %s."), {path, std::strerror(errno)});
  constexpr int kMaxSide = 16384;
  int w = 0, h = 0, n = 0;
  if (!stbi_info(path.c_str(), &w, &h, &n))
    return Status::errorf(N_("%s is not a picture cudalab can read: it reads PNG, JPEG, BMP, "
                             "GIF, TGA, PSD, HDR and PNM files."),
                          {path});
  if (w > kMaxSide || h > kMaxSide)
    return Status::errorf(N_("%s is %s x %s pixels; cudalab opens pictures of up to 16384 "
                             "pixels on a side."),
                          {path, std::to_string(w), std::to_string(h)});
  std::uint8_t* data = stbi_load(path.c_str(), &w, &h, &n, 4);
  if (!data)
    return Status::errorf(N_("%s could not be read: the file looks damaged (%s)."),
                          {path, stbi_failure_reason()});
  Image img;
  img.width = w;
  img.height = h;
  img.rgba.assign(data, data + static_cast<size_t>(w) * h * 4);
  stbi_image_free(data);
  return img;
}

}  // namespace cudalab
