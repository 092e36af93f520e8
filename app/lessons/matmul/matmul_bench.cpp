// The matmul lesson's benchmark (`cudalab bench matmul`), registered through its line in
// lessons/registry.cpp. The helpers (tables, dates, output files) are in core/bench.hpp.
#include "core/bench.hpp"
#include "lessons/matmul/matmul_lesson.hpp"
#include "lessons/matmul/matmul_counters_panel.hpp"

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
#include "matmul/matmul.hpp"
#include "reduction/reduction.hpp"
#include "platform/gl.hpp"

namespace cudalab {

namespace {

// [SECTION] bench matmul: the ladder at 4096^3 against cuBLAS and the FP32 peak, an odd size, the
// course's comparison and GFLOP/s against size

Status matmulTable(int M, int N, int K, const matmul::Ceilings& ceil, std::string& md,
                   nlohmann::json& j, double& bestOfCublas, double& tile16, bool quick) {
  using namespace matmul;
  std::fprintf(stderr, "matmul: ladder %d x %d x %d...\n", M, N, K);
  Result<LadderReport> r =
      measureLadder(MatmulParams{M, N, K, quick ? 1 : 2, quick ? 2 : 10}, allStepIds());
  if (!r) return r.status();
  md += fmt("\n#### C = A B, M = %d, N = %d, K = %d (median of up to 10 runs)\n\n", M, N, K) +
        "| step | precision | block | ms | TFLOP/s | of cuBLAS | of FP32 peak | of measured FMA | "
        "max abs error | max rel error | correct |\n"
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  bestOfCublas = 0;
  tile16 = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const StepResult& t : r->steps) {
    const StepInfo& s = stepInfo(t.step);
    if (handWritten(s) && s.precision == Precision::Float32)
      bestOfCublas = std::max(bestOfCublas, t.ofLibrary);
    if (s.id == StepId::Tiled16) tile16 = t.gflops;
    const bool f32 = s.precision == Precision::Float32;
    md += fmt("| %s | %s | %s | %.3f | %.2f | %.1f%% | %s | %s | %.2e | %.2e | %s |\n", s.label,
              precisionLabel(s.precision),
              handWritten(s) ? fmt("%d x %d", s.blockX, s.blockY).c_str() : "cuBLAS",
              t.m.kernel().medianMs, t.gflops / 1000, 100 * t.ofLibrary,
              f32 && ceil.fp32PeakGflops > 0
                  ? fmt("%.1f%%", 100 * t.gflops / ceil.fp32PeakGflops).c_str()
                  : "-",
              f32 ? fmt("%.1f%%", 100 * t.gflops / ceil.fp32Gflops).c_str() : "-",
              t.error.maxAbsError, t.error.maxRelError, t.error.ok() ? "yes" : "**NO**");
    nlohmann::json row = measuredRow(s.key, t.m, t.error);
    row["precision"] = precisionLabel(s.precision);
    row["gflops"] = t.gflops;
    row["of_cublas"] = t.ofLibrary;
    rows.push_back(std::move(row));
  }
  j["ladders"].push_back({{"M", M}, {"N", N}, {"K", K}, {"steps", rows}});
  return {};
}

// `cudalab bench matmul`: matmul ladder at 4096^3 against cuBLAS and the FP32 peak, an odd size,
// the course's comparison, TFLOP/s against size.
int benchMatmul(const BenchOptions& opt) {
  using namespace matmul;
  BenchDoc doc = startBench(opt, "Matmul");
  auto& [rt, md, j] = doc;
  std::fprintf(stderr, "matmul: ceilings...\n");
  Result<Ceilings> ceil = measureCeilings();
  if (!ceil) return fail(ceil.status());
  md += fmt(
      "\nCeilings: device copy %.0f GB/s (peak %.0f), float32 FMAs %.1f TFLOP/s measured "
      "(peak %.1f).\n",
      ceil->memoryGBps, ceil->memoryPeakGBps, ceil->fp32Gflops / 1000, ceil->fp32PeakGflops / 1000);
  j["ceilings"] = {{"memory_gbps", ceil->memoryGBps},
                   {"memory_peak_gbps", ceil->memoryPeakGBps},
                   {"fp32_gflops", ceil->fp32Gflops},
                   {"fp32_peak_gflops", ceil->fp32PeakGflops}};
  double best = 0, tile16 = 0, bestOdd = 0, tile16Odd = 0;
  const int big = opt.quick ? 256 : 4096;
  if (Status s = matmulTable(big, big, big, *ceil, md, j, best, tile16, opt.quick); !s)
    return fail(s);
  md +=
      fmt("\nTargets at 4096^3: the best hand-written step at least 80%% of cuBLAS SGEMM: "
          "**%.1f%%**; the 16 x 16 tiled step at least the course's Numba tiled kernel (7.9 "
          "TFLOP/s on an H200): **%.2f TFLOP/s**.\n",
          100 * best, tile16 / 1000);
  j["best_of_cublas"] = best;
  j["tile16_gflops"] = tile16;
  if (Status s = opt.quick ? matmulTable(97, 95, 93, *ceil, md, j, bestOdd, tile16Odd, true)
                           : matmulTable(4097, 4095, 4093, *ceil, md, j, bestOdd, tile16Odd, false);
      !s)
    return fail(s);

  std::fprintf(stderr, "matmul: the course's comparison...\n");
  Result<CourseReport> c = measureCourse(opt.quick ? 100 : 1000, true);
  if (!c) return fail(c.status());
  md += fmt("\n#### The course's comparison, %d x %d x %d float32 (CPU: %d threads)\n\n", c->n,
            c->n, c->n, c->cpuThreads) +
        "| | ms | GFLOP/s | max abs diff vs CPU | max abs error vs float64 |\n"
        "| --- | ---: | ---: | ---: | ---: |\n";
  for (const CourseRow& row : c->rows) {
    md += fmt("| %s | %.3f | %.1f | %.2e | %.2e |\n", row.what.c_str(), row.ms, row.gflops,
              row.maxAbsVsCpu, row.maxAbsVsRef);
    j["course"].push_back({{"what", row.what},
                           {"ms", row.ms},
                           {"gflops", row.gflops},
                           {"max_abs_vs_cpu", row.maxAbsVsCpu},
                           {"max_abs_vs_float64", row.maxAbsVsRef}});
  }

  std::fprintf(stderr, "matmul: GFLOP/s against size...\n");
  const std::span<const StepId> sweep = sweepStepIds();
  const std::vector<int> sizes =
      opt.quick ? std::vector<int>{64, 129}
                : std::vector<int>(defaultSweepSizes().begin(), defaultSweepSizes().end());
  const SweepRun<SweepPoint> run = measureSweep(sizes, sweep);
  if (!run.stopped) return fail(run.stopped);
  sweepTable(
      md, j, "TFLOP/s against size (M = N = K = n, 3 runs each)", "n", sizes, sweep, run.points,
      stepInfo, [](int n) { return std::to_string(n); },
      [](const SweepPoint& p) { return fmt("%.2f", p.gflops / 1000); });
  return doc.write(opt, "matmul");
}

}  // namespace

// [SECTION] bench counters-matmul: every hand-written step under the GPU's counters
// `cudalab bench counters-matmul`: every hand-written matmul step under the GPU's counters (CUPTI),
// occupancy beside the calculator's.
int benchMatmulCounters(const BenchOptions& opt) {
  using namespace matmul;
  const int n = opt.quick ? 128 : kCountersExtent;
  const MatmulParams p{n, n, n};
  return writeCountersBench(
      opt.outDir, "counters-matmul", "The matmul ladder under the GPU's counters, 1024^3",
      measureCounters(p, allStepIds(), nullptr, {}), makeMatmulCountersPanel().spec());
}

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"counters-matmul", &benchMatmulCounters},
                                   {"matmul", &benchMatmul}};
const std::span<const BenchEntry> kMatmulBenches = kBenches;

}  // namespace cudalab
