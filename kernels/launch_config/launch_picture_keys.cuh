// Key arithmetic shared by the picture's kernel and its CPU twin (see launch_picture.hpp).
#pragma once

#include <cstdint>

#include "launch_config/launch_config_index.cuh"
#include "launch_config/launch_picture.hpp"

namespace cudalab::launch_config {

CL_HD inline std::uint32_t elementKey(long long e, long long n, std::uint32_t owner,
                                      std::uint32_t writes, int by, long long tpb) {
  if (e >= n) return writes > 0 ? kKeyCanary : kKeyPadding;
  if (by == static_cast<int>(ColourBy::Writes)) return writes == 0 ? kKeyUnwritten : writes;
  if (owner == kNoOwner) return kKeyUnwritten;
  if (by == static_cast<int>(ColourBy::Block))
    return static_cast<std::uint32_t>(clBlockOfThread(owner, tpb));
  if (by == static_cast<int>(ColourBy::Warp))
    return static_cast<std::uint32_t>(clWarpOfThread(owner, tpb));
  return owner;
}

// Folds a pixel's elements: canary beats never-written beats padding; with counts, the most
// writes wins; otherwise the first element's key stays.
CL_HD inline std::uint32_t combineKey(std::uint32_t acc, std::uint32_t k, bool first, int by) {
  if (first) return k;
  if (acc == kKeyCanary || k == kKeyCanary) return kKeyCanary;
  if (acc == kKeyUnwritten || k == kKeyUnwritten) return kKeyUnwritten;
  if (acc == kKeyPadding) return k;
  if (k == kKeyPadding) return acc;
  if (by == static_cast<int>(ColourBy::Writes)) return k > acc ? k : acc;
  return acc;
}

// The key of pixel (px, py).
CL_HD inline std::uint32_t pixelKey(const std::uint32_t* owner, const std::uint32_t* writes,
                                    long long n, long long allocation, long long tpb,
                                    const PictureLayout& L, int px, int py, int by) {
  std::uint32_t acc = kKeyPadding;
  bool first = true;
  for (int dy = 0; dy < L.fy; ++dy) {
    const long long row = static_cast<long long>(py) * L.fy + dy;
    for (int dx = 0; dx < L.fx; ++dx) {
      const long long col = static_cast<long long>(px) * L.fx + dx;
      if (col >= L.rowElements) continue;
      const long long e = row * L.rowElements + col;
      const std::uint32_t k =
          e < allocation ? elementKey(e, n, owner[e], writes[e], by, tpb) : kKeyPadding;
      acc = combineKey(acc, k, first, by);
      first = false;
    }
  }
  return acc;
}

}  // namespace cudalab::launch_config
