// The tensor-cores lesson's benchmark (`cudalab bench tensor-cores`), registered through its line
// in lessons/registry.cpp. The helpers (tables, dates, output files) are in core/bench.hpp.
#include "core/bench.hpp"
#include "lessons/tensor_cores/tensor_cores_counters_panel.hpp"
#include "lessons/tensor_cores/tensor_cores_lesson.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tensor_cores/tensor_cores.hpp"

namespace cudalab {

namespace {

// [SECTION] bench tensor-cores: the ladder at 4096^3 and 8192^3 in BF16 beside cuBLAS BF16, FP16,
// TF32 and SGEMM, and an odd size

// One ladder as a Markdown table; `best` is the best hand-written step's share of cuBLAS in the
// ladder's format.
Status ladderTable(int M, int N, int K, tensor_cores::InputFormat f, bool quick, std::string& md,
                   nlohmann::json& j, double& best) {
  using namespace tensor_cores;
  std::fprintf(stderr, "tensor-cores: ladder %d x %d x %d %s...\n", M, N, K, formatLabel(f));
  TensorParams p{
      .M = M, .N = N, .K = K, .format = f, .warmup = quick ? 1 : 2, .runs = quick ? 2 : 10};
  Result<LadderReport> r = measureLadder(p, allStepIds());
  if (!r) return r.status();
  const Padded pad = r->pad;
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
  md += fmt("\n#### C = A B, M = %d, N = %d, K = %d, %s inputs, float32 accumulation", M, N, K,
            formatLabel(f));
  if (pad.M != M || pad.N != N || pad.K != K)
    md += fmt(", our steps padded to %d x %d x %d", pad.M, pad.N, pad.K);
  md += " (median of up to 10 runs)\n\n| step | needs | tile | ms | TFLOP/s | of cuBLAS ";
  md += formatLabel(f);
  md += " | max abs error | correct |\n| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n";
  best = bestShareOfLibrary(r->steps);
  nlohmann::json rows = nlohmann::json::array();
  for (const StepResult& t : r->steps) {
    const StepInfo& s = stepInfo(t.step);
    md += fmt("| %s | %s | %s | %.3f | %.1f | %.1f%% | %.2e | %s |\n", s.label,
              archNeeded(s, f).c_str(), tileText(s).c_str(), t.m.kernel().medianMs, t.tflops,
              100 * t.ofLibrary, t.error.maxAbsError, t.error.ok() ? "yes" : "**NO**");
    nlohmann::json row = measuredRow(s.key, t.m, t.error);
    row["tflops"] = t.tflops;
    row["of_cublas"] = t.ofLibrary;
    rows.push_back(std::move(row));
  }
  for (const Skipped& k : r->skipped)
    md += fmt("| %s | not run: %s | | | | | | |\n", stepInfo(k.step).label,
              phraseEnglish(k.why).c_str());
  j["ladders"].push_back(
      {{"M", M}, {"N", N}, {"K", K}, {"format", formatLabel(f)}, {"steps", rows}});
  return {};
}

// `cudalab bench tensor-cores`: the ladder in BF16 at 4096^3 and 8192^3, in FP16 at 4096^3, and
// at 4097 x 4095 x 4093, each beside cuBLAS BF16, FP16, TF32 and SGEMM measured in the same run.
int benchTensorCores(const BenchOptions& opt) {
  using namespace tensor_cores;
  BenchDoc doc = startBench(opt, "Tensor cores");
  auto& [rt, md, j] = doc;
  const int a = opt.quick ? 256 : 4096, b = opt.quick ? 512 : 8192;
  double best4096 = 0, best8192 = 0, other = 0;
  // The last table's sizes are no multiple of any tile: the padding at work.
  struct Table {
    int m, n, k;
    InputFormat format;
    double* best;  // the best hand-written step's share of cuBLAS, for the targets
  };
  const Table tables[] = {
      {a, a, a, InputFormat::BFloat16, &best4096},
      {b, b, b, InputFormat::BFloat16, &best8192},
      {a, a, a, InputFormat::Half, &other},
      opt.quick ? Table{97, 95, 93, InputFormat::BFloat16, &other}
                : Table{4097, 4095, 4093, InputFormat::BFloat16, &other},
  };
  for (const Table& t : tables)
    if (Status s = ladderTable(t.m, t.n, t.k, t.format, opt.quick, md, j, *t.best); !s)
      return fail(s);
  md +=
      fmt("\nTargets: the best hand-written step at least 90%% of cuBLAS BF16 at %d^3: "
          "**%.1f%%**; at least 85%% at %d^3: **%.1f%%**.\n",
          b, 100 * best8192, a, 100 * best4096);
  j["best_of_cublas_bf16"] = {{std::to_string(a), best4096}, {std::to_string(b), best8192}};
  return doc.write(opt, "tensor-cores");
}

// `cudalab bench counters-tensor-cores`: every hand-written step that runs here under the GPU's
// counters (CUPTI) at 4096^3 in BF16: tensor pipe, bank conflicts, DRAM bytes.
int benchTensorCoresCounters(const BenchOptions& opt) {
  using namespace tensor_cores;
  const int n = opt.quick ? 256 : kCountersExtent;
  const TensorParams p{n, n, n, InputFormat::BFloat16};
  return writeCountersBench(
      opt.outDir, "counters-tensor-cores",
      "The tensor-cores ladder under the GPU's counters, " + std::to_string(n) + "^3, BF16",
      measureCounters(p, allStepIds(), nullptr, {}), makeTensorCoresCountersPanel().spec());
}

}  // namespace

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"counters-tensor-cores", &benchTensorCoresCounters},
                                   {"tensor-cores", &benchTensorCores}};
const std::span<const BenchEntry> kTensorCoresBenches = kBenches;

}  // namespace cudalab
