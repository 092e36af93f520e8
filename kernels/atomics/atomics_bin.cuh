// Which bin a value falls in: one rule, compiled for the GPU kernels and for the CPU reference, so
// that every step can be compared with the CPU bin by bin, exactly.
//
//   BinRule r{-4.0f, 4.0f, 1.25f, 10};   // float data: [-4, 4) in 10 bins (10 / 8 = 1.25)
//   int k = binOf(x, r);                 // -1: not counted (outside the range, or NaN)
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CUDALAB_HD __host__ __device__
#else
#define CUDALAB_HD
#endif

namespace cudalab::atomics {

struct BinRule {
  float lo = 0, hi = 1;  // float data: the range [lo, hi) ...
  float scale = 1;       // ... and bins / (hi - lo), computed once in float
  int bins = 1;          // 8-bit data: the range 0..255 is cut into `bins` equal parts
};

// float data: (x - lo) x bins / (hi - lo), rounded down, for x in [lo, hi): the rule of CUB's
// HistogramEven, so that every step, the library included, is compared with the CPU exactly.
// Values below lo, at or past hi, infinities and NaN are not counted; a value just below hi whose
// product rounds up to `bins` is not counted either (as in CUB). The subtraction and the
// multiplication are each rounded once, in float32, on the GPU and on the CPU alike (no fused
// operation can join them), so both find the same bin even for a value on an edge. (The course's
// cpu_histogram divides by the bin width instead: near an edge that can pick the neighbour.)
CUDALAB_HD inline int binOf(float x, const BinRule& r) {
  if (!(x >= r.lo && x < r.hi)) return -1;  // NaN fails the test
  const int k = int((x - r.lo) * r.scale);
  return k < r.bins ? k : -1;
}

// 8-bit data: v * bins / 256 in integers, exact, every byte counted. The division by the range
// is a shift because the range is always the byte's 256 values: a division by a run-time number
// costs about twenty instructions, and per byte that was the histogram kernels' limit.
CUDALAB_HD inline int binOf(std::uint8_t x, const BinRule& r) {
  return (int(x) * r.bins) >> 8;
}

}  // namespace cudalab::atomics
