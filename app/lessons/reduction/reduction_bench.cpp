// The reduction lesson's benchmark (`cudalab bench reduction`), registered through its line in
// lessons/registry.cpp. The helpers (tables, dates, output files) are in core/bench.hpp.
#include "core/bench.hpp"
#include "lessons/reduction/reduction_lesson.hpp"
#include "lessons/reduction/reduction_counters_panel.hpp"

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
#include "launch_config/launch_config.hpp"
#include "matmul/matmul.hpp"
#include "reduction/reduction.hpp"
#include "platform/gl.hpp"

namespace cudalab {

using namespace launch_config;
namespace {

// [SECTION] bench reduction: Harris's table for 2^28 int32 and float32 (and float64 at 2^27)
// against CUB and the memory bandwidth, the float32 errors at the course's N, GB/s against N

Status reductionTable(const reduction::ReduceParams& p, std::string& md, nlohmann::json& j,
                      double& bestOfCub) {
  using namespace reduction;
  std::fprintf(stderr, "reduction: ladder, %lld %s...\n", p.n, typeLabel(p.type));
  Result<LadderReport> r = measureLadder(p, allStepIds());
  if (!r) return r.status();
  md += fmt("\n#### %s, N = %lld, %d threads per block (median of %d runs; theoretical bandwidth "
            "%.0f GB/s)\n\n",
            typeLabel(p.type), p.n, p.block, p.runs, r->peakGBps) +
        "| step | launches | ms | GB/s | step speedup | total speedup | of peak | of CUB | "
        "error | correct |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  bestOfCub = bestShareOfLibrary(r->steps);
  nlohmann::json rows = nlohmann::json::array();
  for (const StepResult& t : r->steps) {
    const StepInfo& s = stepInfo(t.step);
    md += fmt("| %s | %s | %.4f | %.0f | %s | %s | %.1f%% | %.1f%% | %.2e | %s |\n", s.label,
              t.plan.c_str(), t.ms, t.gbps,
              t.stepSpeedup > 0 ? fmt("%.2fx", t.stepSpeedup).c_str() : "-",
              t.totalSpeedup > 0 ? fmt("%.2fx", t.totalSpeedup).c_str() : "-", 100 * t.ofPeak,
              100 * t.ofLibrary, t.error, t.ok ? "yes" : "**NO**");
    nlohmann::json row = {{"step", s.key},
                          {"launches", t.plan},
                          {"kernel_median_ms", t.m.kernel().medianMs},
                          {"runs", t.m.runs},
                          {"bound", t.bound}};
    for (const auto& [name, value] : stepValues(t))
      row[name] = value;
    row["correct"] = t.ok;  // as a JSON truth value here
    rows.push_back(std::move(row));
  }
  j["ladders"].push_back({{"type", typeLabel(p.type)},
                          {"n", p.n},
                          {"block", p.block},
                          {"peak_gbps", r->peakGBps},
                          {"exact", static_cast<double>(r->cpu.exact)},
                          {"best_of_cub", bestOfCub},
                          {"steps", rows}});
  if (p.type == DataType::Float32) {
    const CpuSums& c = r->cpu;
    md +=
        fmt("\nExact sum %.6Lf; CPU float32 loop %.9g, NumPy's np.sum order %.9g, pairwise %.9g, "
            "Kahan %.9g.\n",
            c.exact, c.sequential, c.numpy, c.pairwise, c.kahan);
  }
  return {};
}

// `cudalab bench reduction`: reduction ladder for 2^28 int32 and float32 against CUB and the memory
// bandwidth, float64, the course's N, GB/s against N.
int benchReduction(const BenchOptions& opt) {
  using namespace reduction;
  BenchDoc doc = startBench(opt, "Reduction");
  auto& [rt, md, j] = doc;
  double bestInt = 0, bestFloat = 0, other = 0;
  // Quick runs (for the sanitizers) keep every step and type at a size with a ragged last block.
  const long long big = opt.quick ? (1LL << 16) + 3 : 1LL << 28;
  const int warmup = opt.quick ? 1 : 2, runs = opt.quick ? 2 : 10;
  if (Status s = reductionTable({DataType::Int32, big, 256, warmup, runs}, md, j, bestInt); !s)
    return fail(s);
  if (Status s = reductionTable({DataType::Float32, big, 256, warmup, runs}, md, j, bestFloat); !s)
    return fail(s);
  md +=
      fmt("\nTarget at 2^28: the best hand-written step at least 95%% of CUB DeviceReduce: int32 "
          "**%.1f%%**, float32 **%.1f%%**.\n",
          100 * bestInt, 100 * bestFloat);
  j["best_of_cub_int32"] = bestInt;
  j["best_of_cub_float32"] = bestFloat;
  if (Status s = reductionTable({DataType::Float64, big / 2, 256, warmup, runs}, md, j, other); !s)
    return fail(s);
  if (Status s = reductionTable({DataType::Float32, opt.quick ? 1000 : kCourseN, 256, warmup, runs},
                                md, j, other);
      !s)
    return fail(s);

  std::fprintf(stderr, "reduction: GB/s against N...\n");
  const std::span<const StepId> sweep = sweepStepIds();
  const std::vector<long long> sizes =
      opt.quick ? std::vector<long long>{1 << 10, 1 << 14} : defaultSweepSizes();
  const SweepRun<SweepPoint> run = measureSweep(DataType::Float32, 256, sizes, sweep);
  if (!run.stopped) return fail(run.stopped);
  sweepTable(
      md, j, "float32 GB/s against N (256 threads per block, 5 runs each)", "N", sizes, sweep,
      run.points, stepInfo,
      [](long long n) { return fmt("2^%d", static_cast<int>(std::log2(double(n)))); },
      [](const SweepPoint& p) { return fmt(p.gbps < 10 ? "%.2f" : "%.0f", p.gbps); });
  return doc.write(opt, "reduction");
}

}  // namespace

// [SECTION] bench counters-reduction: every hand-written step's first kernel under the counters
// `cudalab bench counters-reduction`: every hand-written reduction step's first kernel under the
// GPU's counters (CUPTI).
int benchReductionCounters(const BenchOptions& opt) {
  using namespace reduction;
  const ReduceParams p{DataType::Float32, opt.quick ? 1LL << 16 : 1LL << 22, 256};
  return writeCountersBench(opt.outDir, "counters-reduction",
                            "The reduction ladder under the GPU's counters, 2^22 float32",
                            measureCounters(p, allStepIds(), nullptr, {}),
                            makeReductionCountersPanel().spec());
}

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"counters-reduction", &benchReductionCounters},
                                   {"reduction", &benchReduction}};
const std::span<const BenchEntry> kReductionBenches = kBenches;

}  // namespace cudalab
