// How fast the GPU does fused multiply-adds in float32, float64 and half: the price of precision.
//
// A kernel keeps many independent FMA chains per thread busy (so the FMA units, not latency,
// limit it) and is timed with events; GFLOP/s count 2 flops per FMA and 4 per half2 FMA (two
// halves at once, which is how GPUs reach their half-precision rate). Each figure is shown
// against the device's theoretical peak (models/arch.hpp).
//
//   Result<std::vector<FmaRate>> r = measureFmaRates(0, &cancel);
//   for (const FmaRate& f : *r) show(fmaTypeInfo(f.type).label, f.gflops, f.peak.value);
#pragma once

#include <atomic>
#include <span>
#include <vector>

#include "common/status.hpp"
#include "models/arch.hpp"

namespace cudalab::precision {

enum class FmaType { Float32, Float64, Half2 };

struct FmaTypeInfo {
  FmaType type;
  const char* id;           // "f32", "f64", "half2"
  const char* label;        // "float32", "float64", "half (half2)"
  const char* instruction;  // the PTX instruction the kernel runs: "fma.rn.f32"
  int flopsPerInstruction;  // 2, 2, 4
  int colour;               // palette index, the same as the precision's in the other panels
};
std::span<const FmaTypeInfo> fmaTypes();
const FmaTypeInfo& fmaTypeInfo(FmaType t);

struct FmaRate {
  FmaType type;
  double gflops = 0;  // median of the timed runs
  double medianMs = 0;
  double flops = 0;  // per run
  Peak peak;         // the theoretical peak of this device for this type
  double fractionOfPeak() const { return peak.known ? gflops / peak.value : 0.0; }
};

// Measures every type on `device` (after a warm-up, median of 5 runs each). `cancel` may be null.
Result<std::vector<FmaRate>> measureFmaRates(int device, const std::atomic<bool>* cancel = nullptr);

}  // namespace cudalab::precision
