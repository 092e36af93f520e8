#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"
#include "common/pattern.hpp"

namespace cudalab {
namespace {

// Integer-only so the GPU and the CPU produce the same bits.
__host__ __device__ inline std::uint32_t patternPixel(int x, int y, int frame) {
  const std::uint32_t r = static_cast<std::uint32_t>((x + frame * 3) & 255);
  const std::uint32_t g = static_cast<std::uint32_t>((y + frame) & 255);
  const std::uint32_t b = static_cast<std::uint32_t>(((x ^ y) + frame * 7) & 255);
  return r | (g << 8) | (b << 16) | (255u << 24);
}

__global__ void patternKernel(std::uint32_t* pixels, int width, int height, int frame) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x < width && y < height)
    pixels[static_cast<size_t>(y) * width + x] = patternPixel(x, y, frame);
}

}  // namespace

Status drawTestPattern(std::uint32_t* pixels, int width, int height, int frame,
                       cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((width + 31) / 32, (height + 7) / 8);
  patternKernel<<<grid, block, 0, stream>>>(pixels, width, height, frame);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

std::uint32_t testPatternPixel(int x, int y, int frame) {
  return patternPixel(x, y, frame);
}

}  // namespace cudalab
