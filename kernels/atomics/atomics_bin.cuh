// Which bin a value falls in: one rule, compiled for the GPU kernels and for the CPU reference, so
// that every step can be compared with the CPU bin by bin, exactly.
//
//   BinRule r{-4.0f, 0.8f, 10, 0, 256};   // float data: [-4, 4) in 10 bins of 0.8
//   int k = binOf(x, r);                  // -1: not counted (outside the range, or NaN)
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CUDALAB_HD __host__ __device__
#else
#define CUDALAB_HD
#endif

namespace cudalab::atomics {

struct BinRule {
  float lo = 0;     // float data: the range starts here ...
  float width = 1;  // ... and each bin is this wide (computed once, in float, as the course does)
  int bins = 1;     // 8-bit data: the range 0..255 is cut into `bins` equal parts
};

// float data: the course's (x - xmin) / bin_width, rounded down. Values below xmin, at or past
// the last bin, infinities and NaN are not counted. Subtraction and division are each rounded
// once, in float32, on the GPU and on the CPU alike (no fused operation can join them), so both
// find the same bin even for a value on an edge.
CUDALAB_HD inline int binOf(float x, const BinRule& r) {
  const float q = (x - r.lo) / r.width;
  if (!(q >= 0.0f) || !(q < float(r.bins))) return -1;  // NaN fails both tests
  const int k = int(q);                                 // q >= 0: truncation is floor
  return k < r.bins ? k : -1;
}

// 8-bit data: v * bins / 256 in integers, exact, every byte counted. The division by the range
// is a shift because the range is always the byte's 256 values: a division by a run-time number
// costs about twenty instructions, and per byte that was the histogram kernels' limit.
CUDALAB_HD inline int binOf(std::uint8_t x, const BinRule& r) {
  return (int(x) * r.bins) >> 8;
}

}  // namespace cudalab::atomics
