// What the CUDA runtime does not say: the architecture behind a compute capability.
//
// cudaGetDeviceProperties reports the number of SMs and the clocks, but not how many FP32 cores or
// FP64 units each SM has; those follow from the compute capability (CC). This pure C++ table
// (no CUDA headers, usable without a GPU) gives them, so the device lesson can show total CUDA
// cores and the theoretical peaks the other lessons compare their measurements against.
//
// [SECTION] Architecture table
//   if (auto a = archInfo(9, 0)) show(a->family, a->fp32CoresPerSM);   // "Hopper", 128
//   else show("unknown");   // a CC the table does not know: never guessed
//
// [SECTION] Theoretical peaks
//   Peak bw = memoryBandwidthPeak(2619000, 5120);   // 3352.3 GB/s, bw.formula explains it
//   Peak f = fp32Peak(132, 128, 1980000);           // 66908.2 GFLOP/s
//   if (!f.known) show(f.formula);                   // says which input is missing
#pragma once

#include <optional>
#include <span>
#include <string>

namespace cudalab {

// ---------------------------------------------------------------------------------------------
// [SECTION] Architecture table
// ---------------------------------------------------------------------------------------------

// One compute capability. Counts are per streaming multiprocessor (SM) and count lanes that
// complete one fused multiply-add (FMA) per clock, as in the CUDA Programming Guide's throughput
// table. 0 means "not known" (the table avoids it, but code reading it must not divide by it).
struct ArchInfo {
  int major;
  int minor;
  const char* family;    // "Kepler", "Maxwell", ..., "Hopper", "Blackwell"
  int fp32CoresPerSM;    // "CUDA cores" per SM
  int fp64UnitsPerSM;    // FP64 FMA units per SM (2 on gaming parts, 32-64 on data-centre parts)
  const char* examples;  // products with this CC, e.g. "H100, H200, GH200"
};

// Every compute capability from 3.0 (Kepler) to the newest the CUDA 13 toolkit targets, sorted by
// (major, minor) with no duplicates.
std::span<const ArchInfo> archTable();

// The table entry for a compute capability, or nullopt when the table does not know it (a newer
// GPU than this build, or a CC that never existed): callers then show "unknown", never a guess.
std::optional<ArchInfo> archInfo(int major, int minor);

// "9.0", "12.1": how NVIDIA writes a compute capability.
std::string computeCapabilityString(int major, int minor);

// FP64 throughput relative to FP32 as "1:2", "1:64"; "unknown" when either count is 0.
std::string fp64RatioText(const ArchInfo& a);

// ---------------------------------------------------------------------------------------------
// [SECTION] Theoretical peaks
// ---------------------------------------------------------------------------------------------
// What the hardware could do at most if every unit worked every clock. Measured numbers in the
// lessons are shown as a fraction of these. Each peak carries its formula with the device's
// numbers substituted, so a learner can redo the arithmetic.

struct Peak {
  double value;         // in `unit`; NaN when !known, so a forgotten check cannot show a fake 0
  const char* unit;     // "GB/s" (10^9 bytes per second) or "GFLOP/s"
  std::string formula;  // "2 x 2619 MHz x 5120 bit / 8 = 3352.3 GB/s", or what is missing
  bool known;           // false when an input was 0 or unknown
};

// DRAM bandwidth: 2 transfers per clock (double data rate) x clock x bus width in bytes.
// memClockKHz is what cudaDevAttrMemoryClockRate reports (kHz), busWidthBits
// cudaDevAttrGlobalMemoryBusWidth. The factor 2 matches NVIDIA's datasheets for HBM and GDDR
// alike because the driver reports GDDR clocks already scaled for its extra transfers.
Peak memoryBandwidthPeak(double memClockKHz, int busWidthBits);

// FP32 peak: SMs x FP32 cores per SM x 2 (one FMA counts as two flops) x clock.
// clockKHz is what cudaDevAttrClockRate reports (the maximum boost clock, in kHz).
Peak fp32Peak(int sms, int coresPerSM, double clockKHz);

// 16-bit floating-point (half) results per clock per SM for ordinary (non-tensor) arithmetic, as
// the Programming Guide's throughput table gives them (a half2 instruction gives two results), or
// 0 where the table does not say (never guessed).
int fp16ResultsPerSM(int major, int minor);
// FP16 peak: SMs x results per SM x 2 (FMA) x clock; unknown when resultsPerSM is 0.
Peak fp16Peak(int sms, int resultsPerSM, double clockKHz);

// FP64 peak: SMs x FP64 units per SM x 2 (FMA) x clock. Tensor-core FP64 (Hopper's DMMA) is
// not included: this is what ordinary double arithmetic in a kernel can reach.
Peak fp64Peak(int sms, int fp64PerSM, double clockKHz);

// Dense FP16 / BF16 tensor-core multiply-adds per clock per SM with float32 accumulation, from
// NVIDIA's data-centre datasheets (V100 125, A100 312, H100 SXM 989 TFLOP/s at their boost clocks),
// or 0 where not checked (the consumer parts halve their float32-accumulating rate, Blackwell is
// not in this table): never guessed.
int tensorFmaPerSM(int major, int minor);
// Tensor peak: SMs x FMAs per SM x 2 (FMA) x clock; unknown when fmaPerSM is 0.
Peak tensorPeak(int sms, int fmaPerSM, double clockKHz);

// The three arithmetic peaks of a device from its compute capability, SM count and clock (the
// table's unit counts; unknown where the table does not know them).
struct FlopsPeaks {
  Peak fp32, fp64, fp16;
};
FlopsPeaks flopsPeaks(int major, int minor, int sms, double clockKHz);

}  // namespace cudalab
