// A kernel-made test image: an RGBA8 frame that changes every frame, used to measure what it costs
// to get a kernel's picture onto the screen (interop against a copy through host memory).
//
//   CUDALAB_TRY(drawTestPattern(pixels, 1920, 1080, frameNumber, stream));
#pragma once

#include <cstdint>

#include "common/status.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab {

// Writes width*height RGBA8 pixels (row 0 first) into device memory at `pixels`.
Status drawTestPattern(std::uint32_t* pixels, int width, int height, int frame,
                       cudaStream_t stream);

// The same pattern computed on the CPU, for tests (both paths must give identical textures).
std::uint32_t testPatternPixel(int x, int y, int frame);

}  // namespace cudalab
