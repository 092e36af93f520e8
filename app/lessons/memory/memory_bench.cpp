// The memory lesson's benchmarks (`cudalab bench memory / memory-model`), registered through its
// line in lessons/registry.cpp. The helpers (tables, dates, output files) are in core/bench.hpp.
#include "core/bench.hpp"
#include "lessons/memory/memory_lesson.hpp"

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
#include "common/runtime_info.hpp"
#include "counters/counters.hpp"
#include "lessons/memory/transpose_counters_panel.hpp"
#include "matmul/matmul.hpp"
#include "memory/memory.hpp"
#include "reduction/reduction.hpp"
#include "transfers/transfers.hpp"
#include "platform/gl.hpp"
#include "ui/renderer.hpp"
#include "ui/shell.hpp"

namespace cudalab {

using namespace transfers;
using namespace memory;
namespace {

// [SECTION] bench memory: the transpose ladder against the copy ceiling, strided copy against the
// access model

// The access model's view of a step (memory.hpp: stepModel): load / store sectors per request,
// shared wavefronts per request of the tile read ("-" without a tile).
std::string modelColumns(const memory::TransposeStepInfo& s, int rows, int cols) {
  const memory::StepModel m = memory::stepModel(s, rows, cols);
  return fmt("%.2f | %.2f | ", m.loadSectors, m.storeSectors) +
         (m.sharedLoad < 0 ? std::string("-") : fmt("%.2f", m.sharedLoad));
}

Status transposeTable(int rows, int cols, int runs, std::string& md, nlohmann::json& j,
                      double& bestFraction) {
  memory::TransposeParams p;
  p.rows = rows;
  p.cols = cols;
  p.runs = runs;
  std::fprintf(stderr, "memory: transpose ladder %d x %d...\n", rows, cols);
  Result<memory::TransposeReport> r = memory::measureTranspose(p);
  if (!r) return r.status();
  md += fmt("\n#### Transpose, %d x %d float32 (%d runs each, median)\n\n", rows, cols, runs) +
        "| step | ms | GB/s | of copy ceiling | model: load sectors | store sectors | shared "
        "wavefronts | correct |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  bestFraction = 0;
  nlohmann::json rowsJson = nlohmann::json::array();
  for (const memory::TransposeResult& t : r->steps) {
    const memory::TransposeStepInfo& s = memory::transposeStep(t.step);
    if (!s.ceiling) bestFraction = std::max(bestFraction, t.ofCeiling);
    md += fmt("| %s | %.3f | %.0f | %.1f%% | ", s.label, t.m.kernel().medianMs, t.gbps,
              100 * t.ofCeiling) +
          (s.step == memory::TransposeStep::Memcpy ? std::string("- | - | -")
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

// `cudalab bench memory`: transpose ladder against the copy ceiling; strided copy against the
// access model.
int benchMemory(const BenchOptions& opt) {
  BenchDoc doc = startBench(opt, "Memory");
  auto& [rt, md, j] = doc;
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
  memory::StridedParams sp;
  if (opt.quick) {
    sp.count = 1 << 16;
    sp.warmup = 1;
    sp.runs = 2;
  }
  Result<memory::StridedReport> r = memory::measureStridedCopy(sp);
  if (!r) return fail(r.status());
  md += fmt("\n#### Strided copy, %lld floats read and written (%d runs each, median)\n\n",
            sp.count, sp.runs) +
        "| stride | GB/s (useful bytes) | model efficiency | predicted GB/s | measured / "
        "predicted | correct |\n| ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const memory::StridedPoint& pt : r->points) {
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
  return doc.write(opt, "memory");
}
// [SECTION] bench memory-model: every modelled kernel once, with the model's counts, for Nsight
// Compute (tools/ncu_memory_check.py runs it under ncu and compares)

// `cudalab bench memory-model`: every modelled kernel once, with the model's sector and wavefront
// counts (run under ncu).
int benchMemoryModel(const BenchOptions& opt) {
  const RuntimeInfo& rt = opt.rt;
  std::string md = "### Access model, " + today() + ", " + rt.firstDeviceName + "\n\n" +
                   "| case | global load sectors/request | global store sectors/request | shared "
                   "load wavefronts/request | shared store wavefronts/request |\n"
                   "| --- | ---: | ---: | ---: | ---: |\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  for (const memory::ModelCheckCase& c : memory::modelCheckCases()) {
    std::fprintf(stderr, "memory-model: %s\n", c.label.c_str());
    if (Status s = memory::runModelKernel(c); !s) return fail(s);
    const memory::KernelInfo& k = memory::kernelInfo(c.kernel);
    // Totals over the kernel's instructions of each kind, as the counters add them up.
    const memory::TotalsByKind sum = memory::kernelTotalsByKind(c.kernel, c.p);
    auto cell = [](const memory::InstructionTotals& s, bool shared) {
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

// `cudalab bench counters-memory`: the access model against the GPU's counters read in the app
// (CUPTI), every modelled kernel.
int benchCounters(const BenchOptions& opt) {
  const RuntimeInfo& rt = opt.rt;
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
  for (const memory::ModelCheckCase& c : memory::modelCheckCases()) {
    std::fprintf(stderr, "counters: %s\n", c.label.c_str());
    Result<std::vector<counters::LaunchCounters>> r =
        counters::profile(keys, [&] { return memory::runModelKernel(c); });
    if (!r) return fail(r.status());
    if (r->empty()) return fail(Status::error("No kernel was profiled for " + c.label + "."));
    const counters::LaunchCounters& m = r->back();
    const memory::TotalsByKind model = memory::kernelTotalsByKind(c.kernel, c.p);
    nlohmann::json raw;
    for (size_t i = 0; i < m.keys.size(); ++i)
      raw[counters::findMetric(m.keys[i])->cupti] = m.values[i];
    j["cases"].push_back({{"label", c.label},
                          {"kernel", memory::kernelInfo(c.kernel).name},
                          {"range", m.range},
                          {"counters", raw}});
    const struct {
      memory::Space space;
      memory::Op op;
      const char *name, *num, *den;
    } kinds[] = {
        {memory::Space::Global, memory::Op::Load, "global load sectors", "global_load_sectors",
         "global_load_requests"},
        {memory::Space::Global, memory::Op::Store, "global store sectors", "global_store_sectors",
         "global_store_requests"},
        {memory::Space::Shared, memory::Op::Load, "shared load wavefronts",
         "shared_load_wavefronts_sass", "shared_load_requests"},
        {memory::Space::Shared, memory::Op::Store, "shared store wavefronts",
         "shared_store_wavefronts_sass", "shared_store_requests"},
    };
    for (const auto& k : kinds) {
      const memory::InstructionTotals& t = model[int(k.space)][int(k.op)];
      if (t.requests == 0) continue;
      // The shared-strided kernel fills its buffer with shared stores the model leaves out.
      if (memory::kernelInfo(c.kernel).name == std::string("shared_strided") &&
          k.space == memory::Space::Shared && k.op == memory::Op::Store)
        continue;
      const double want =
          k.space == memory::Space::Global ? t.sectorsPerRequest() : t.wavefrontsPerRequest();
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
// `cudalab bench counters-transpose`: the transpose ladder under the GPU's counters, beside the
// access model.
int benchTransposeCounters(const BenchOptions& opt) {
  int code = 0;
  // The lesson's default 8192 x 8192 (counted at 992 x 992) and an odd shape with edges.
  for (const auto& [id, p] :
       {std::pair<const char*, memory::TransposeParams>{
            "counters-transpose", {opt.quick ? 256 : 8192, opt.quick ? 256 : 8192}},
        {"counters-transpose-odd", {1000, 17}}})
    code |= writeCountersBench(opt.outDir, id,
                               "The transpose ladder under the GPU's counters, " +
                                   std::to_string(memory::modelExtent(p.rows)) + " x " +
                                   std::to_string(memory::modelExtent(p.cols)),
                               memory::measureTransposeCounters(p),
                               makeTransposeCountersPanel().spec());
  return code;
}

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"memory", &benchMemory},
                                   {"memory-model", &benchMemoryModel},
                                   {"counters-memory", &benchCounters},
                                   {"counters-transpose", &benchTransposeCounters}};
const std::span<const BenchEntry> kMemoryBenches = kBenches;

}  // namespace cudalab
