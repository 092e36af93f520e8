// The playground's "machine code" panel: the PTX NVRTC wrote and the SASS in the binary (through
// nvdisasm, kernels/playground/machine_code.hpp) side by side, every instruction banded in the
// colour of the learner's line it came from, as Compiler Explorer draws them. The editor's line
// with the cursor is highlighted in both panes; a click on an instruction highlights its line and
// goes to it in the editor, and the editor's gutter carries the same colours.
//
//   MachineCodePanel machine;
//   machine.set(compiled);                     // after each compile (the SASS comes a moment
//   later) machine.draw(ctx, editor);                 // in drawMain
//   editor.setLineBands(machine.lineBands());
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/async_job.hpp"
#include "core/lesson.hpp"
#include "lessons/playground/code_editor.hpp"
#include "playground/compile.hpp"
#include "playground/compare.hpp"
#include "playground/machine_code.hpp"
#include "playground/playground.hpp"

namespace cudalab::pg {

class MachineCodePanel {
 public:
  // A new compile: its PTX listing at once, its SASS from nvdisasm on a worker thread (a compile
  // is never kept waiting for it). A failed compile clears the panes.
  void set(const playground::CompileResult& c);
  // The text that compile was made from, as exercise e's program: "Compare" compiles it again
  // with one thing changed.
  void setSource(const playground::Exercise& e, std::string text);
  // The last run's readings for the binary shown (nullptr: no run): its counts per instruction
  // (RunParams::lineCounters), which the SASS pane puts beside each instruction, and its PC
  // samples (RunParams::stalls): each instruction's share of all samples, and in its tooltip
  // what the warps there waited for.
  void setRun(const playground::RunReport* r);
  void draw(LessonContext& ctx, CodeEditor& editor);
  // The colour of each source line with instructions (index line - 1; 0 for none; up to the last
  // line with any), for the editor's margin. Made when a listing arrives, not every frame.
  const std::vector<ImU32>& lineBands() const { return bands_; }
  // Compiles the text again as variants()[variant] and compares the two SASS listings (false
  // when there is no SASS yet, or a comparison runs). The panel's Compare button, and the lesson's
  // actions compare:KEY.
  bool compareWith(int variant);
  bool comparing() const { return compareJob_.pending(); }
  // The lesson's actions compare:KEY, one per variant (for plans, --action and the tests).
  std::vector<LessonAction> compareActions();
  bool pending() const { return sassJob_.pending() || compareJob_.pending(); }
  void cancel() {
    sassJob_.cancel();
    compareJob_.cancel();
  }

 private:
  void setCounts(const std::vector<counters::SassRecord>& instructions);
  void setStalls(const std::vector<std::string>& reasons,
                 const std::vector<counters::StallRecord>& records);
  void poll();
  // What the listings give the draws: the editor's colours, the panes' widths in characters.
  void listingsChanged();
  std::vector<ImU32> bands_;
  std::size_t ptxLongest_ = 0, sassLongest_ = 0;
  // One pane: its lines in a scrolling child, `id` for ImGui, `scrollTo` the source line to bring
  // into view (0: none). Returns the source line of a clicked instruction, or 0.
  int drawPane(LessonContext& ctx, const char* id, const std::vector<playground::AsmLine>& lines,
               int selected, int scrollTo, float height);

  // "Compare two compiles": the variant chosen, its compile and SASS, and the diff of the two.
  struct Comparison {
    std::string base;  // the binary compared (a result for an older one is dropped)
    playground::Variant variant;
    std::vector<playground::PtxasInfo> resources;
    std::vector<playground::AsmLine> sass;
    std::vector<playground::DiffRow> rows;
  };
  void drawCompare(LessonContext& ctx, float height);

  // Warp instructions executed, by (kernel, offset).
  std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> executed_;
  // PC samples by (kernel, offset), their reasons' names and the samples of the whole run.
  std::map<std::pair<std::string, std::uint64_t>, counters::StallRecord> stalls_;
  std::vector<std::string> stallReasons_;
  std::uint64_t stallTotal_ = 0, stallMost_ = 0;  // all samples; the most at one instruction
  // The hovered instruction's tooltip: its line, and with samples what its warps waited for.
  std::string instructionTip(const playground::AsmLine& a) const;
  int arch_ = 0;
  const playground::Exercise* exercise_ = nullptr;
  std::string text_;
  std::vector<playground::PtxasInfo> resources_;
  int variant_ = 0;  // index into playground::variants()
  AsyncJob<Comparison> compareJob_;
  std::optional<Comparison> comparison_;
  Status compareError_;
  std::vector<playground::AsmLine> ptx_;
  // The disassembly of `cubin` (a result for an older binary is dropped, and the current one's
  // started then: a job cannot start while one runs).
  struct Sass {
    std::string cubin;
    std::vector<playground::AsmLine> lines;
  };
  void startSass();
  AsyncJob<Sass> sassJob_;
  std::optional<std::vector<playground::AsmLine>> sass_;
  Status sassError_;
  std::string cubin_;  // the binary the panes show (a new compile of the same text is not redone)
  int selected_ = 0;   // the source line highlighted
  int lastCursor_ = 0;
  int scrollTo_ = 0;   // a line to bring into view in both panes at the next draw
  int ptxStart_ = -1;  // the PTX's first kernel, brought into view once after a compile
};

}  // namespace cudalab::pg
