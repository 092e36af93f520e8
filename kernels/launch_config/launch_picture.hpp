// The launch-config lesson's picture: every element of the array as a pixel, coloured by who
// wrote it (block, warp or thread) or how many times it was written; elements no thread wrote and
// writes past the end of the array (the canary zone) stand out.
//
// The same keys come from the GPU (a kernel reads the instrumented run's owner and write-count
// arrays and writes the picture straight into a CUDA-OpenGL interop buffer) and from the CPU model
// (no GPU). Large arrays are shown downsampled: a pixel covers a small rectangle of elements and
// shows the most alarming of them (canary, then never written, then the most writes, else the
// first element's owner), so a single missed element never disappears.
//
//   PictureLayout L = pictureLayout(shape);
//   std::vector<uint32_t> keys = pictureKeysCpu(model, shape, L, ColourBy::Block);
//   // shaders/ids.frag colours the keys.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/cuda_raii.hpp"
#include "launch_config/launch_config.hpp"

namespace cudalab::launch_config {

enum class ColourBy { Block = 0, Warp = 1, Thread = 2, Writes = 3 };
// What the colours say, as the UI names it (marked for the catalogue, translated where shown).
inline constexpr const char* kColourByNames[] = {N_("block"), N_("warp"), N_("thread"),
                                                 N_("times written")};

// Keys the shader gives special colours (shaders/ids.frag uses the same values).
inline constexpr std::uint32_t kKeyUnwritten = 0xFFFFFFFFu;
inline constexpr std::uint32_t kKeyCanary = 0xFFFFFFFEu;
inline constexpr std::uint32_t kKeyPadding = 0xFFFFFFFDu;

// Elements are laid out in rows of `rowElements` (the 2D grid's width; in 1D a multiple of 32, so
// that with block sizes that are multiples of 32 a row is made of whole warps). A pixel covers
// fx x fy elements.
struct PictureLayout {
  long long rowElements = 0;
  long long rows = 0;
  int fx = 1, fy = 1;
  int width = 0, height = 0;  // in pixels
};

PictureLayout pictureLayout(const LaunchShape& s, int maxWidth = 1024, int maxHeight = 1024);

std::vector<std::uint32_t> pictureKeysCpu(const OwnershipMap& m, const LaunchShape& s,
                                          const PictureLayout& layout, ColourBy by);

// Writes layout.width * layout.height keys into device memory at `out` (an interop buffer).
Status pictureKeysGpu(const std::uint32_t* owner, const std::uint32_t* writes, const LaunchShape& s,
                      const PictureLayout& layout, ColourBy by, std::uint32_t* out,
                      cudaStream_t stream);

// The instrumented run's owner and write counts, kept on the device for the picture.
struct DeviceOwnership {
  LaunchShape shape;
  DeviceArray<std::uint32_t> owner, writes;
};
Result<std::unique_ptr<DeviceOwnership>> runOwnershipOnDevice(const LaunchConfig& c,
                                                              const DeviceLimits& limits,
                                                              cudaStream_t stream);

}  // namespace cudalab::launch_config
