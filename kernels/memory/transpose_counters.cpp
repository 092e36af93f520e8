// The transpose ladder under the GPU's counters (CUPTI): every step's kernel once, at the size the
// access model counts, so the sectors and wavefronts the hardware counted can be put beside the
// model's numbers and must agree.
#include <cuda_runtime.h>

#include <cmath>
#include <random>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/translatable.hpp"
#include "memory/memory.hpp"

namespace cudalab::memory {

namespace {

// A total the hardware and the model both count, and the per-request ratio it belongs to.
struct Total {
  Space space;
  Op op;
  const char* key;    // the counter with the total
  const char* ratio;  // the per-request key the panel shows
  const char* what;   // marked: a mismatch's sentence shows it translated
};
constexpr Total kTotals[] = {
    {Space::Global, Op::Load, "global_load_sectors", "global_load_sectors_per_request",
     N_("global load sectors")},
    {Space::Global, Op::Store, "global_store_sectors", "global_store_sectors_per_request",
     N_("global store sectors")},
    {Space::Shared, Op::Load, "shared_load_wavefronts_sass", "shared_load_wavefronts_per_request",
     N_("shared load wavefronts")},
};

}  // namespace

Result<std::vector<counters::StepReading>> measureTransposeCounters(const TransposeParams& lesson,
                                                                    const std::atomic<bool>* cancel,
                                                                    const Progress& progress) {
  CUDALAB_TRY(validate(lesson));
  const int rows = modelExtent(lesson.rows), cols = modelExtent(lesson.cols);
  const size_t n = size_t(rows) * size_t(cols);
  DeviceArray<float> A, B;
  CUDALAB_TRY(A.allocate(n));
  CUDALAB_TRY(B.allocate(n));
  {
    std::vector<float> h(n);
    std::mt19937 rng{std::random_device{}()};
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float& v : h)
      v = u(rng);
    CUDALAB_CUDA_TRY(cudaMemcpy(A.get(), h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  // The copy is a copy engine's work, not a kernel.
  auto keep = [](const TransposeStepInfo& s) { return s.step != TransposeStep::Memcpy; };
  auto read = [&](const TransposeStepInfo& s, std::size_t i) -> Result<counters::StepReading> {
    Result<counters::StepReading> r = counters::profileStep(
        s.id, s.label, int(i), kTransposeCounterKeys,
        [&] { return launchTranspose(s.step, A.get(), B.get(), rows, cols, nullptr); });
    if (!r) return r.status();
    counters::StepReading& reading = *r;
    // The model's totals at the same size: they must equal the counters'. (Per request the two
    // may differ at the matrix's edge, where the hardware also counts requests of warps whose
    // every lane is off; they move nothing.)
    const TotalsByKind model = kernelTotalsByKind(s.kernel, patternParams(s, rows, cols));
    for (const Total& t : kTotals) {
      const InstructionTotals& m = model[int(t.space)][int(t.op)];
      if (m.requests == 0) continue;
      const bool global = t.space == Space::Global;
      reading.model.emplace_back(t.ratio,
                                 global ? m.sectorsPerRequest() : m.wavefrontsPerRequest());
      const double want = double(global ? m.sectors : m.wavefronts);
      const double got = reading.measured.value(t.key).value_or(NAN);
      reading.model.emplace_back(t.key, want);
      if (!(std::fabs(got - want) <= 0.005 * std::max(want, 1.0)))
        reading.mismatches.push_back(
            {N_("%s: the model counts %s, the GPU %s"),
             {t.what, std::to_string(std::llround(want)),
              std::isnan(got) ? N_("nothing") : std::to_string(std::llround(got))}});
    }
    return r;
  };
  return counters::profileSteps(
      transposeSteps(), [](const TransposeStepInfo& s) -> const TransposeStepInfo& { return s; },
      keep, read, cancel, progress);
}

}  // namespace cudalab::memory
