// The memory lesson's benchmarks (`cudalab bench memory / memory-model`), registered through its
// line in lessons/registry.cpp. The helpers (tables, dates, output files) are in bench.hpp.
#include "bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include "common/cuda_raii.hpp"
#include "common/measurement.hpp"
#include "common/pattern.hpp"
#include "common/runtime_info.hpp"
#include "counters/counters.hpp"
#include "lessons/transpose_counters_panel.hpp"
#include "device/device_bandwidth.hpp"
#include "launch_config/launch_config.hpp"
#include "matmul/matmul.hpp"
#include "memory/memory.hpp"
#include "precision/summation.hpp"
#include "precision/throughput.hpp"
#include "reduction/reduction.hpp"
#include "transfers/transfers.hpp"
#include "lessons/registry.hpp"
#include "platform/gl.hpp"
#include "platform/headless_egl.hpp"
#include "platform/interop.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

namespace cudalab {
namespace {

// [SECTION] bench memory: the transpose ladder against the copy ceiling, strided copy against the
// access model

// The access model's view of a step (memory.hpp: stepModel): load / store sectors per request,
// shared wavefronts per request of the tile read ("-" without a tile).
std::string modelColumns(const mem::TransposeStepInfo& s, int rows, int cols) {
  const mem::StepModel m = mem::stepModel(s, rows, cols);
  return fmt("%.2f | %.2f | ", m.loadSectors, m.storeSectors) +
         (m.sharedLoad < 0 ? std::string("-") : fmt("%.2f", m.sharedLoad));
}

Status transposeTable(int rows, int cols, int runs, std::string& md, nlohmann::json& j,
                      double& bestFraction) {
  mem::TransposeParams p;
  p.rows = rows;
  p.cols = cols;
  p.runs = runs;
  std::fprintf(stderr, "memory: transpose ladder %d x %d...\n", rows, cols);
  Result<mem::TransposeReport> r = mem::measureTranspose(p);
  if (!r) return r.status();
  md += fmt("\n#### Transpose, %d x %d float32 (%d runs each, median)\n\n", rows, cols, runs) +
        "| step | ms | GB/s | of copy ceiling | model: load sectors | store sectors | shared "
        "wavefronts | correct |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  bestFraction = 0;
  nlohmann::json rowsJson = nlohmann::json::array();
  for (const mem::TransposeResult& t : r->steps) {
    const mem::TransposeStepInfo& s = mem::transposeStep(t.step);
    if (!s.ceiling) bestFraction = std::max(bestFraction, t.ofCeiling);
    md += fmt("| %s | %.3f | %.0f | %.1f%% | ", s.label, t.m.kernel().medianMs, t.gbps,
              100 * t.ofCeiling) +
          (s.step == mem::TransposeStep::Memcpy ? std::string("- | - | -")
                                                : modelColumns(s, rows, cols)) +
          " | " + (t.m.check.ok() ? "yes" : "**NO**") + " |\n";
    rowsJson.push_back({{"step", s.id},
                        {"median_ms", t.m.kernel().medianMs},
                        {"min_ms", t.m.kernel().minMs},
                        {"gbps", t.gbps},
                        {"of_ceiling", t.ofCeiling},
                        {"correct", t.m.check.ok()}});
  }
  j["transpose"].push_back({{"rows", rows},
                            {"cols", cols},
                            {"ceiling_gbps", r->ceilingGBps},
                            {"best_of_ceiling", bestFraction},
                            {"steps", rowsJson}});
  return {};
}

int benchMemory(const BenchOptions& opt) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  std::string md = "### Memory, " + today() + ", " + rt.firstDeviceName + "\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  double best = 0, bestOdd = 0;
  const int side = opt.quick ? 256 : 8192;
  if (Status s = transposeTable(side, side, opt.quick ? 2 : 20, md, j, best); !s) return fail(s);
  md +=
      fmt("\nTarget: the best transpose at least 90%% of the copy ceiling (the faster of "
          "cudaMemcpy and the copy kernel): **%.1f%%**.\n",
          100 * best);
  if (Status s = transposeTable(side - 1, side + 1, opt.quick ? 2 : 10, md, j, bestOdd); !s)
    return fail(s);

  std::fprintf(stderr, "memory: strided copy...\n");
  mem::StridedParams sp;
  if (opt.quick) {
    sp.count = 1 << 16;
    sp.warmup = 1;
    sp.runs = 2;
  }
  Result<mem::StridedReport> r = mem::measureStridedCopy(sp);
  if (!r) return fail(r.status());
  md += fmt("\n#### Strided copy, %lld floats read and written (%d runs each, median)\n\n",
            sp.count, sp.runs) +
        "| stride | GB/s (useful bytes) | model efficiency | predicted GB/s | measured / "
        "predicted | correct |\n| ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const mem::StridedPoint& pt : r->points) {
    md += fmt("| %d | %.0f | %.1f%% | %.0f | %.2f | ", pt.stride, pt.gbps, 100 * pt.modelEfficiency,
              pt.predictedGBps, pt.gbps / pt.predictedGBps) +
          (pt.m.check.ok() ? "yes" : "**NO**") + " |\n";
    j["strided"].push_back({{"stride", pt.stride},
                            {"gbps", pt.gbps},
                            {"model_efficiency", pt.modelEfficiency},
                            {"predicted_gbps", pt.predictedGBps},
                            {"correct", pt.m.check.ok()}});
  }
  j["best_transpose_of_ceiling"] = best;
  return writeOutputs(opt.outDir, "memory", md, j) ? 0 : 1;
}
// [SECTION] bench memory-model: every modelled kernel once, with the model's counts, for Nsight
// Compute (tools/ncu_memory_check.py runs it under ncu and compares)

int benchMemoryModel(const BenchOptions& opt) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  std::string md = "### Access model, " + today() + ", " + rt.firstDeviceName + "\n\n" +
                   "| case | global load sectors/request | global store sectors/request | shared "
                   "load wavefronts/request | shared store wavefronts/request |\n"
                   "| --- | ---: | ---: | ---: | ---: |\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  for (const mem::ModelCheckCase& c : mem::modelCheckCases()) {
    std::fprintf(stderr, "memory-model: %s\n", c.label.c_str());
    if (Status s = mem::runModelKernel(c); !s) return fail(s);
    const mem::KernelInfo& k = mem::kernelInfo(c.kernel);
    // Totals over the kernel's instructions of each kind, as the counters add them up.
    const mem::TotalsByKind sum = mem::kernelTotalsByKind(c.kernel, c.p);
    auto cell = [](const mem::InstructionTotals& s, bool shared) {
      if (!s.requests) return std::string("-");
      return fmt("%.3f", shared ? s.wavefrontsPerRequest() : s.sectorsPerRequest());
    };
    md += "| " + c.label + " | " + cell(sum[0][0], false) + " | " + cell(sum[0][1], false) + " | " +
          cell(sum[1][0], true) + " | " + cell(sum[1][1], true) + " |\n";
    j["cases"].push_back({{"label", c.label},
                          {"kernel", k.name},
                          {"global_load_requests", sum[0][0].requests},
                          {"global_load_sectors", sum[0][0].sectors},
                          {"global_store_requests", sum[0][1].requests},
                          {"global_store_sectors", sum[0][1].sectors},
                          {"shared_load_requests", sum[1][0].requests},
                          {"shared_load_wavefronts", sum[1][0].wavefronts},
                          {"shared_store_requests", sum[1][1].requests},
                          {"shared_store_wavefronts", sum[1][1].wavefronts}});
  }
  return writeOutputs(opt.outDir, "memory-model", md, j) ? 0 : 1;
}

}  // namespace

// [SECTION] bench counters: the access model against the GPU's counters read in this process
// (CUPTI), every model-check kernel; raw counters in the JSON for tools/ncu_memory_check.py
// --in-app, which puts Nsight Compute's beside them.

int benchCounters(const BenchOptions& opt) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  const std::vector<std::string> keys = {"global_load_sectors",          "global_load_requests",
                                         "global_store_sectors",         "global_store_requests",
                                         "shared_load_wavefronts_sass",  "shared_load_requests",
                                         "shared_store_wavefronts_sass", "shared_store_requests"};
  std::string md = "### The access model against the GPU's counters (CUPTI, in the app), " +
                   today() + ", " + rt.firstDeviceName + "\n\n" +
                   "| case | kind | model per request | counters per request | match |\n"
                   "| --- | --- | ---: | ---: | --- |\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  int compared = 0, mismatches = 0;
  for (const mem::ModelCheckCase& c : mem::modelCheckCases()) {
    std::fprintf(stderr, "counters: %s\n", c.label.c_str());
    Result<std::vector<counters::LaunchCounters>> r =
        counters::profile(keys, [&] { return mem::runModelKernel(c); });
    if (!r) return fail(r.status());
    if (r->empty()) return fail(Status::error("No kernel was profiled for " + c.label + "."));
    const counters::LaunchCounters& m = r->back();
    const mem::TotalsByKind model = mem::kernelTotalsByKind(c.kernel, c.p);
    nlohmann::json raw;
    for (size_t i = 0; i < m.keys.size(); ++i)
      raw[counters::findMetric(m.keys[i])->cupti] = m.values[i];
    j["cases"].push_back({{"label", c.label},
                          {"kernel", mem::kernelInfo(c.kernel).name},
                          {"range", m.range},
                          {"counters", raw}});
    const struct {
      mem::Space space;
      mem::Op op;
      const char *name, *num, *den;
    } kinds[] = {
        {mem::Space::Global, mem::Op::Load, "global load sectors", "global_load_sectors",
         "global_load_requests"},
        {mem::Space::Global, mem::Op::Store, "global store sectors", "global_store_sectors",
         "global_store_requests"},
        {mem::Space::Shared, mem::Op::Load, "shared load wavefronts", "shared_load_wavefronts_sass",
         "shared_load_requests"},
        {mem::Space::Shared, mem::Op::Store, "shared store wavefronts",
         "shared_store_wavefronts_sass", "shared_store_requests"},
    };
    for (const auto& k : kinds) {
      const mem::InstructionTotals& t = model[int(k.space)][int(k.op)];
      if (t.requests == 0) continue;
      // The shared-strided kernel fills its buffer with shared stores the model leaves out.
      if (mem::kernelInfo(c.kernel).name == std::string("shared_strided") &&
          k.space == mem::Space::Shared && k.op == mem::Op::Store)
        continue;
      const double want =
          k.space == mem::Space::Global ? t.sectorsPerRequest() : t.wavefrontsPerRequest();
      const double den = m.value(k.den).value_or(0);
      const double got = den > 0 ? m.value(k.num).value_or(0) / den : NAN;
      const bool ok = std::fabs(got - want) <= 0.005 * std::max(want, 1e-9);
      ++compared;
      mismatches += !ok;
      md += "| " + c.label + " | " + k.name +
            fmt(" | %.3f | %.3f | %s |\n", want, got, ok ? "yes" : "**NO**");
    }
  }
  md += fmt("\n%d comparisons, **%d mismatches**.\n", compared, mismatches);
  j["compared"] = compared;
  j["mismatches"] = mismatches;
  return writeOutputs(opt.outDir, "counters-memory", md, j) ? (mismatches ? 1 : 0) : 1;
}

// [SECTION] bench counters-transpose: the transpose ladder under the counters, beside the model
int benchTransposeCounters(const BenchOptions& opt) {
  const RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  int code = 0;
  // The lesson's default 8192 x 8192 (counted at 992 x 992) and an odd shape with edges.
  for (const auto& [id, p] :
       {std::pair<const char*, mem::TransposeParams>{
            "counters-transpose", {opt.quick ? 256 : 8192, opt.quick ? 256 : 8192}},
        {"counters-transpose-odd", {1000, 17}}})
    code |= writeCountersBench(opt.outDir, id,
                               "The transpose ladder under the GPU's counters, " +
                                   std::to_string(mem::modelExtent(p.rows)) + " x " +
                                   std::to_string(mem::modelExtent(p.cols)),
                               mem::measureTransposeCounters(p), transposeCountersSpec());
  return code;
}

std::span<const BenchEntry> memoryBenches() {
  static const BenchEntry k[] = {
      {"memory", "transpose ladder against the copy ceiling; strided copy against the access model",
       &benchMemory},
      {"memory-model",
       "every modelled kernel once, with the model's sector and wavefront counts (run under ncu)",
       &benchMemoryModel},
      {"counters-memory",
       "the access model against the GPU's counters read in the app (CUPTI), every modelled "
       "kernel",
       &benchCounters},
      {"counters-transpose",
       "the transpose ladder under the GPU's counters, beside the access model",
       &benchTransposeCounters},
  };
  return k;
}

}  // namespace cudalab
