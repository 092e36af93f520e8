// The precision lesson's benchmark (`cudalab bench precision`), registered through its line in
// lessons/registry.cpp. The helpers (tables, dates, output files) are in core/bench.hpp.
#include "core/bench.hpp"
#include "lessons/precision/precision_lesson.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include "common/cuda_raii.hpp"
#include "common/runtime_info.hpp"
#include "precision/summation.hpp"
#include "precision/throughput.hpp"
#include "platform/gl.hpp"

namespace cudalab {

namespace {

// [SECTION] bench precision: FMA throughput against the peaks, summation errors at the course's N

// `cudalab bench precision`: FMA throughput (float32, float64, half) against the peaks; summation
// errors.
int benchPrecision(const BenchOptions& opt) {
  const RuntimeInfo& rt = opt.rt;
  std::fprintf(stderr, "precision: FMA throughput...\n");
  Result<std::vector<precision::FmaRate>> rates = precision::measureFmaRates(0);
  if (!rates) return fail(rates.status());
  std::string md =
      "### FMA throughput, " + today() + ", " + rt.firstDeviceName + "\n\n" +
      "| type | instruction | measured GFLOP/s | peak GFLOP/s | of peak | median ms |\n"
      "| --- | --- | ---: | ---: | ---: | ---: |\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  double f32 = 0, f64 = 0, half = 0;
  for (const precision::FmaRate& r : *rates) {
    const precision::FmaTypeInfo& t = precision::fmaTypeInfo(r.type);
    md += fmt("| %s | %s | %.0f | ", t.label, t.instruction, r.gflops) +
          (r.peak.known ? fmt("%.0f | %.0f%%", r.peak.value, 100 * r.fractionOfPeak())
                        : std::string("unknown | ")) +
          fmt(" | %.3f |\n", r.medianMs);
    j["fma"][t.id] = {{"gflops", r.gflops},
                      {"peak_gflops", r.peak.known ? r.peak.value : 0.0},
                      {"peak_formula", r.peak.formula},
                      {"median_ms", r.medianMs}};
    if (r.type == precision::FmaType::Float32) f32 = r.gflops;
    if (r.type == precision::FmaType::Float64) f64 = r.gflops;
    if (r.type == precision::FmaType::Half2) half = r.gflops;
  }
  md += fmt("\nfloat64 : float32 = 1 : %.2f; half : float32 = %.2f : 1 (measured in one run).\n",
            f32 / f64, half / f32);
  j["fp64_to_fp32"] = f64 / f32;
  j["half_to_fp32"] = half / f32;

  std::fprintf(stderr, "precision: summing 2^27 - 157 normal numbers...\n");
  const std::vector<float> x =
      precision::normalFloats(opt.quick ? (1 << 16) - 157 : precision::kCourseSumCount, 20261121u);
  Result<precision::SumResults> sums = precision::sumAll(x, true);
  if (!sums) return fail(sums.status());
  md += fmt("\n### Summation of %zu normal float32 numbers, exact sum %.10f\n\n", sums->n,
            static_cast<double>(sums->exact)) +
        "| method | sum | error | bound |\n| --- | ---: | ---: | --- |\n";
  for (const precision::SumMethodInfo& m : precision::sumMethods()) {
    const size_t k = static_cast<size_t>(m.method);
    std::string bound = m.bound;  // "sum|x|": a pipe would split the Markdown cell
    for (size_t at = bound.find('|'); at != std::string::npos; at = bound.find('|', at + 2))
      bound.replace(at, 1, "\\|");
    md += fmt("| %s | %.10g | %.3g | ", m.label, sums->value[k], sums->error[k]) + bound + " |\n";
    j["sums"][m.id] = {{"sum", sums->value[k]}, {"error", sums->error[k]}};
  }
  j["sums"]["tree_on_gpu"] = sums->treeOnGpu;
  return writeOutputs(opt.outDir, "precision", md, j) ? 0 : 1;
}

}  // namespace

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"precision", &benchPrecision}};
const std::span<const BenchEntry> kPrecisionBenches = kBenches;

}  // namespace cudalab
