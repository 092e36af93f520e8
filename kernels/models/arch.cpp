#include "models/arch.hpp"

#include "common/translatable.hpp"

#include "common/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace cudalab {

namespace {

// Sources: the CUDA C++ Programming Guide's "Throughput of Native Arithmetic Instructions" table
// (FP32 and FP64 results per clock per SM) and NVIDIA's "CUDA GPU Compute Capability" page (which
// products have which CC). Entries marked UNSURE are not in the throughput table of any guide
// this was checked against; their numbers are the best public knowledge (whitepapers, datasheet
// peaks divided by SMs x clock) and should be corrected when NVIDIA documents them.
//
// FP64 counts are the hardware units. Some products fuse off or throttle them (e.g. GeForce
// GTX 780 Ti and GTX Titan Black in their default mode run FP64 at 1:24 although the GK110 chip
// has 64 units per SM), so a measured FP64 rate can be lower than this table implies.
constexpr ArchInfo kArchTable[] = {
    // Kepler: 192 FP32 cores per SMX; GK110/GK210 add 64 FP64 units, the others 8.
    {3, 0, "Kepler", 192, 8, "GeForce GTX 680, GTX 770, Tesla K10"},
    {3, 2, "Kepler", 192, 8, "Tegra K1 (Jetson TK1)"},
    // 3.5 also covers small GK208 parts (GeForce GT 730) that have only 8 FP64 units per SM.
    {3, 5, "Kepler", 192, 64, "Tesla K20, K40, GeForce GTX Titan, GTX 780 Ti"},
    {3, 7, "Kepler", 192, 64, "Tesla K80"},
    // Maxwell: 128 FP32 cores, FP64 at 1:32.
    {5, 0, "Maxwell", 128, 4, "GeForce GTX 750 Ti, Quadro K2200"},
    {5, 2, "Maxwell", 128, 4, "GeForce GTX 980, GTX Titan X, Tesla M40"},
    {5, 3, "Maxwell", 128, 4, "Tegra X1 (Jetson Nano, Jetson TX1)"},
    // Pascal: GP100 is the compute part (64 FP32 + 32 FP64), the rest are graphics parts.
    {6, 0, "Pascal", 64, 32, "Tesla P100, Quadro GP100"},
    {6, 1, "Pascal", 128, 4, "GeForce GTX 1080, Titan Xp, Tesla P40, P4"},
    {6, 2, "Pascal", 128, 4, "Tegra X2 (Jetson TX2)"},
    // Volta: 64 FP32 + 32 FP64 per SM.
    {7, 0, "Volta", 64, 32, "Tesla V100, Titan V, Quadro GV100"},
    // UNSURE (FP64): the guide's column "7.x" gives 32 FP64 per SM for every 7.x except 7.5;
    // Xavier's integrated GPU is not listed separately.
    {7, 2, "Volta", 64, 32, "Jetson AGX Xavier, Xavier NX"},
    {7, 5, "Turing", 64, 2, "GeForce RTX 2080 Ti, Tesla T4, Quadro RTX 8000"},
    // Ampere: GA100 keeps Volta's 64 + 32; GA10x doubles FP32 (two datapaths per partition).
    {8, 0, "Ampere", 64, 32, "A100, A30"},
    {8, 6, "Ampere", 128, 2, "GeForce RTX 3090, RTX A6000, A40, A10"},
    // UNSURE (FP64): Orin is a GA10x-style SM; assumed the same 2 FP64 units as 8.6.
    {8, 7, "Ampere", 128, 2, "Jetson AGX Orin, Orin NX, Orin Nano"},
    // UNSURE (all fields): sm_88 is a CUDA 13 compiler target with no product on NVIDIA's
    // compute-capability page. Numbered between Orin (8.7) and Ada (8.9); assumed to be an
    // Ampere-class SM like 8.6/8.7.
    {8, 8, "Ampere", 128, 2, N_("no publicly documented product (sm_88 target)")},
    {8, 9, "Ada Lovelace", 128, 2, "GeForce RTX 4090, L4, L40S, RTX 6000 Ada"},
    {9, 0, "Hopper", 128, 64, "H100, H200, GH200"},
    {10, 0, "Blackwell", 128, 64, "B200, GB200"},
    // UNSURE (FP64): Blackwell Ultra cut FP64 to about 1.2 TFLOP/s per GPU; with ~150 SMs near
    // 2 GHz that is 2 FP64 FMA units per SM.
    {10, 3, "Blackwell", 128, 2, "B300, GB300"},
    // UNSURE (FP64): Thor (called 10.1 before CUDA 13) has no published FP64 rate; assumed the
    // 2 units per SM of the other non-data-centre Blackwell parts.
    {11, 0, "Blackwell", 128, 2, "Jetson AGX Thor (T5000, T4000)"},
    {12, 0, "Blackwell", 128, 2, "GeForce RTX 5090, RTX PRO 6000 Blackwell"},
    // UNSURE (FP64): GB10 is described as 12.0-class; assumed the same 2 FP64 units.
    {12, 1, "Blackwell", 128, 2, "GB10 (DGX Spark)"},
};

Peak unknownPeak(const char* unit, std::string why) {
  return {std::numeric_limits<double>::quiet_NaN(), unit, std::move(why), false};
}

// Shared by FP32 and FP64: units x 2 flops per FMA x clock.
Peak flopsPeak(int sms, int unitsPerSM, double clockKHz, const char* unitName) {
  const char* unit = "GFLOP/s";
  std::string missing;
  if (sms <= 0) missing += "the number of SMs";
  if (unitsPerSM <= 0) {
    if (!missing.empty()) missing += ", ";
    missing += std::string(unitName) + " per SM (not known for this compute capability)";
  }
  if (!(clockKHz > 0) || !std::isfinite(clockKHz)) {
    if (!missing.empty()) missing += ", ";
    missing += "the GPU clock";
  }
  if (!missing.empty()) return unknownPeak(unit, "unknown: missing " + missing);

  // kHz x 1e3 = Hz; flops / 1e9 = GFLOP/s.
  double gflops = double(sms) * unitsPerSM * 2.0 * clockKHz * 1e3 / 1e9;
  std::string f = std::to_string(sms) + " SMs x " + std::to_string(unitsPerSM) + " " + unitName +
                  " x 2 flops per FMA x " + trimmedFixed(clockKHz / 1000.0, 1) +
                  " MHz = " + trimmedFixed(gflops, 1) + " GFLOP/s";
  if (gflops >= 1000) f += " (" + trimmedFixed(gflops / 1000.0, 1) + " TFLOP/s)";
  return {gflops, unit, f, true};
}

}  // namespace

std::span<const ArchInfo> archTable() {
  return kArchTable;
}

std::optional<ArchInfo> archInfo(int major, int minor) {
  auto it = std::find_if(std::begin(kArchTable), std::end(kArchTable),
                         [&](const ArchInfo& a) { return a.major == major && a.minor == minor; });
  if (it == std::end(kArchTable)) return std::nullopt;
  return *it;
}

std::string computeCapabilityString(int major, int minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string fp64RatioText(const ArchInfo& a) {
  if (a.fp32CoresPerSM <= 0 || a.fp64UnitsPerSM <= 0) return "unknown";
  // Every ratio in the table is a whole number; print a fraction otherwise rather than round.
  if (a.fp32CoresPerSM % a.fp64UnitsPerSM == 0)
    return "1:" + std::to_string(a.fp32CoresPerSM / a.fp64UnitsPerSM);
  return std::to_string(a.fp64UnitsPerSM) + ":" + std::to_string(a.fp32CoresPerSM);
}

Peak memoryBandwidthPeak(double memClockKHz, int busWidthBits) {
  const char* unit = "GB/s";
  bool clockOk = memClockKHz > 0 && std::isfinite(memClockKHz);
  if (!clockOk && busWidthBits <= 0)
    return unknownPeak(unit, "unknown: missing the memory clock and the memory bus width");
  if (!clockOk) return unknownPeak(unit, "unknown: missing the memory clock");
  if (busWidthBits <= 0) return unknownPeak(unit, "unknown: missing the memory bus width");

  // 2 transfers per clock x Hz x bytes per transfer, in 10^9 bytes per second.
  double gbs = 2.0 * memClockKHz * 1e3 * (busWidthBits / 8.0) / 1e9;
  std::string f = "2 x " + trimmedFixed(memClockKHz / 1000.0, 1) + " MHz x " +
                  std::to_string(busWidthBits) + " bit / 8 = " + trimmedFixed(gbs, 1) + " GB/s";
  return {gbs, unit, f, true};
}

Peak fp32Peak(int sms, int coresPerSM, double clockKHz) {
  return flopsPeak(sms, coresPerSM, clockKHz, "FP32 cores");
}

int fp16ResultsPerSM(int major, int minor) {
  // The Programming Guide's "16-bit floating-point add, multiply, multiply-add" row. Pascal's
  // graphics parts (6.1) run half at 1/64 of float; Ada (8.9) at the float rate; Hopper and the
  // Ampere parts at twice the float rate. Blackwell is not in the table this was checked against.
  struct Row {
    int major, minor, results;
  };
  constexpr Row kRows[] = {{5, 3, 256}, {6, 0, 128}, {6, 1, 2},   {6, 2, 256},
                           {7, 0, 128}, {7, 2, 128}, {7, 5, 128}, {8, 0, 256},
                           {8, 6, 256}, {8, 7, 256}, {8, 9, 128}, {9, 0, 256}};
  for (const Row& r : kRows)
    if (r.major == major && r.minor == minor) return r.results;
  return 0;
}

Peak fp16Peak(int sms, int resultsPerSM, double clockKHz) {
  return flopsPeak(sms, resultsPerSM, clockKHz, "FP16 results");
}

Peak fp64Peak(int sms, int fp64PerSM, double clockKHz) {
  return flopsPeak(sms, fp64PerSM, clockKHz, "FP64 units");
}

int tensorFmaPerSM(int major, int minor) {
  // 8 tensor cores x 64 FMAs on Volta; 4 x 256 on the A100; 4 x 512 on Hopper.
  struct Row {
    int major, minor, fma;
  };
  constexpr Row kRows[] = {{7, 0, 512}, {8, 0, 1024}, {9, 0, 2048}};
  for (const Row& r : kRows)
    if (r.major == major && r.minor == minor) return r.fma;
  return 0;
}

Peak tensorPeak(int sms, int fmaPerSM, double clockKHz) {
  return flopsPeak(sms, fmaPerSM, clockKHz, "tensor-core FMAs (dense FP16)");
}

FlopsPeaks flopsPeaks(int major, int minor, int sms, double clockKHz) {
  const std::optional<ArchInfo> a = archInfo(major, minor);
  return {fp32Peak(sms, a ? a->fp32CoresPerSM : 0, clockKHz),
          fp64Peak(sms, a ? a->fp64UnitsPerSM : 0, clockKHz),
          fp16Peak(sms, fp16ResultsPerSM(major, minor), clockKHz)};
}

}  // namespace cudalab
