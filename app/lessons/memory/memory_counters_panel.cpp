#include "lessons/memory/memory_counters_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "counters/counters.hpp"
#include "core/counters_helper.hpp"
#include "memory/memory.hpp"
#include "ui/data_table.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace memory;

namespace {

struct Kind {
  memory::Space space;
  memory::Op op;
  const char *name, *num, *den;  // name: marked N_(), translated where the table shows it
};
constexpr Kind kKinds[] = {
    {memory::Space::Global, memory::Op::Load, N_("global loads: sectors / request"),
     "global_load_sectors", "global_load_requests"},
    {memory::Space::Global, memory::Op::Store, N_("global stores: sectors / request"),
     "global_store_sectors", "global_store_requests"},
    {memory::Space::Shared, memory::Op::Load, N_("shared loads: wavefronts / request"),
     "shared_load_wavefronts_sass", "shared_load_requests"},
    {memory::Space::Shared, memory::Op::Store, N_("shared stores: wavefronts / request"),
     "shared_store_wavefronts_sass", "shared_store_requests"},
};

// The two patterns' kernels the panel profiles, as they cross to the counters' helper process.
struct TwoKernels {
  memory::KernelId global, shared;
  memory::PatternParams globalParams, sharedParams;
};

// The counters of `k` at `p`: its kernel's (the last launch: fills come first).
Result<counters::LaunchCounters> profileKernel(memory::KernelId k, const memory::PatternParams& p) {
  std::vector<std::string> keys;
  for (const Kind& kind : kKinds)
    keys.insert(keys.end(), {kind.num, kind.den});
  const memory::ModelCheckCase c{memory::kernelInfo(k).name, k, p};
  Result<std::vector<counters::LaunchCounters>> r =
      counters::profile(keys, [&] { return memory::runModelKernel(c); });
  if (!r) return r.status();
  if (r->empty()) return Status::error(N_("The profiler saw no kernel."));
  return r->back();
}

// How the counters' helper process measures this panel (core/counters_helper.hpp): one
// reading per kernel, its counters as they came.
const bool kHelperJob = registerCountersJob<TwoKernels>(
    "memory-patterns",
    [](const TwoKernels& two, const std::atomic<bool>*,
       const CountersProgress& progress) -> Result<CountersReadings> {
      CountersReadings out(2);
      progress(0.1f, "the global pattern's kernel");
      Result<counters::LaunchCounters> a = profileKernel(two.global, two.globalParams);
      if (!a) return a.status();
      out[0].measured = std::move(*a);
      progress(0.6f, "the shared pattern's kernel");
      Result<counters::LaunchCounters> b = profileKernel(two.shared, two.sharedParams);
      if (!b) return b.status();
      out[1].measured = std::move(*b);
      return out;
    });

}  // namespace

std::vector<MemoryCountersPanel::Row> againstModel(memory::KernelId k,
                                                   const memory::PatternParams& p,
                                                   const counters::LaunchCounters& m) {
  const memory::TotalsByKind model = memory::kernelTotalsByKind(k, p);
  std::vector<MemoryCountersPanel::Row> rows;
  for (const Kind& kind : kKinds) {
    const memory::InstructionTotals& t = model[int(kind.space)][int(kind.op)];
    if (t.requests == 0) continue;
    // The shared-strided kernel fills its buffer with shared stores the model leaves out.
    if (k == memory::KernelId::SharedStrided && kind.space == memory::Space::Shared &&
        kind.op == memory::Op::Store)
      continue;
    MemoryCountersPanel::Row row;
    row.kernel = memory::kernelInfo(k).name;
    row.kind = kind.name;
    row.model =
        kind.space == memory::Space::Global ? t.sectorsPerRequest() : t.wavefrontsPerRequest();
    const double den = m.value(kind.den).value_or(0), num = m.value(kind.num).value_or(0);
    row.measuredRequests = std::llround(den);
    row.modelRequests = t.requests;
    row.measured = den > 0 ? num / den : NAN;
    row.measuredTotal = num;
    row.modelTotal = double(kind.space == memory::Space::Global ? t.sectors : t.wavefronts);
    row.ok = std::fabs(row.measuredTotal - row.modelTotal) <= 0.005 * std::max(row.modelTotal, 1.0);
    rows.push_back(row);
  }
  return rows;
}

bool MemoryCountersPanel::start(memory::PatternId global, const memory::PatternParams& gp,
                                memory::PatternId shared, const memory::PatternParams& sp) {
  error_ = {};
  const memory::KernelId gk = memory::patternInfo(global).kernel,
                         sk = memory::patternInfo(shared).kernel;
  const TwoKernels two{gk, sk, gp, sp};
  return job_.start([two](AsyncJob<Reading>::Control& c) -> Result<Reading> {
    Result<CountersReadings> r =
        measureInHelper("memory-patterns", two, c.cancelFlag(), c.progressFn());
    if (!r) return r.status();
    if (r->size() != 2) return Status::error(N_("The counters' process sent no reading."));
    Reading out;
    out.rows = againstModel(two.global, two.globalParams, (*r)[0].measured);
    std::vector<Row> b = againstModel(two.shared, two.sharedParams, (*r)[1].measured);
    out.rows.insert(out.rows.end(), b.begin(), b.end());
    return out;
  });
}

void MemoryCountersPanel::draw(LessonContext& ctx, bool gpu, const LessonAction& read) {
  if (const Status s = job_.takeInto(last_); !s) {
    error_ = s;
    ctx.error(s);  // the status bar says it too
  }
  if (!beginPanel(ctx, "counters", "Measured by the GPU's counters", kPanelCollapsible))
    return endPanel(ctx);
  ImGui::BeginDisabled(!gpu || job_.running());
  if (!ctx.exporting) actionButton(read);
  ImGui::EndDisabled();
  if (!gpu) {
    mutedText(ctx.theme, "No GPU: there are no counters to read; the model's numbers are above.");
    return endPanel(ctx);
  }
  if (job_.running()) {
    ImGui::TextUnformatted(tr("Profiling..."));
    if (!ctx.exporting && button("Cancel")) cancel();
  }
  if (!error_.ok()) {
    // Counters that cannot be read (permission, no CUPTI, an unsupported GPU): one sentence.
    errorText(ctx.theme, error_);
    return endPanel(ctx);
  }
  static const TableColumn kColumns[] = {
      {"kernel"},
      {"access"},
      {"the model, per request", "model", 0},
      {"the counters, per request", "counters", 0},
      {"agree"},
  };
  if (last_ && beginDataTable("##counters", kColumns, static_cast<int>(last_->rows.size()))) {
    for (const Row& r : last_->rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.kernel.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(tr(r.kind.c_str()));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(trimmedFixed(r.model, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(trimmedFixed(r.measured, 3).c_str());
      helpTooltip(trf("Counted: %s in %s requests. Model: %s in %s requests.",
                      thousands(std::llround(r.measuredTotal)).c_str(),
                      thousands(r.measuredRequests).c_str(),
                      thousands(std::llround(r.modelTotal)).c_str(),
                      thousands(r.modelRequests).c_str())
                      .c_str());
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, r.ok ? ctx.theme.goodColour() : ctx.theme.errorColour());
      const bool extraRequests = r.ok && r.measuredRequests != r.modelRequests;
      ImGui::TextUnformatted(!r.ok ? tr("NO") : extraRequests ? tr("yes*") : tr("yes"));
      ImGui::PopStyleColor();
      if (extraRequests)
        helpTooltip(trf("The same %s in total, but the hardware counted %s more requests: warps "
                        "whose every lane is outside the matrix still issue the instruction, with "
                        "all lanes switched off, and move nothing. The model counts only requests "
                        "with at least one active lane.",
                        thousands(std::llround(r.modelTotal)).c_str(),
                        thousands(r.measuredRequests - r.modelRequests).c_str())
                        .c_str());
    }
    endDataTable();
  }
  mutedText(ctx.theme,
            "Model: what the lesson computes from each lane's address (sectors a warp's request "
            "touches, passes shared memory needs). Counters: what the GPU counted while the same "
            "kernel ran with the same parameters (l1tex sectors and requests for global memory; "
            "the SM's per-instruction shared wavefronts). They agree when the totals are equal; "
            "yes* marks rows where the hardware also counted requests of warps with every lane "
            "switched off (at the matrix's edge), which lowers its per-request number without "
            "moving anything. A NO would mean the model misses something the hardware does.");
  endPanel(ctx);
}

}  // namespace cudalab
