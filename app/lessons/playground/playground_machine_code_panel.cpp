#include "lessons/playground/playground_machine_code_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "core/i18n.hpp"
#include "playground/playground.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab::pg {

using namespace playground;

namespace {

// A source line's colour: the palette's seven hues in turn (grey, the eighth, is left for lines of
// no source), so neighbouring lines never share one.
int colourOf(int line) {
  return (line - 1) % 7;
}

int instructionCount(const std::vector<AsmLine>& lines) {
  return static_cast<int>(std::count_if(
      lines.begin(), lines.end(), [](const AsmLine& a) { return a.kind == AsmKind::Instruction; }));
}

// A count in at most six characters: "937", "45.2k", "1.2M", "3.4G".
std::string compact(std::uint64_t v) {
  char buf[16];
  if (v < 10000)
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  else if (v < 10000000)
    std::snprintf(buf, sizeof buf, "%.1fk", double(v) / 1e3);
  else if (v < 10000000000ull)
    std::snprintf(buf, sizeof buf, "%.1fM", double(v) / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.1fG", double(v) / 1e9);
  return buf;
}

using InstructionKey = std::pair<std::string, std::uint64_t>;  // (kernel, offset)

// A SASS line's offset as the pane writes it ("/*01b0*/  "): its width in characters, and the
// width of each column after it (the executions' count, the share of the samples).
int offsetWidth(std::uint64_t pc) {
  int digits = 4;
  while (digits < 16 && (pc >> (4 * digits)) != 0)
    ++digits;
  return digits + 6;
}
constexpr std::size_t kCountWidth = 8;

// What a line shows: a kernel's name as C++ writes it, a SASS instruction after its offset (and,
// with counts, after how many times warps executed it: `executed` is nullptr without them; with
// PC samples, after its share of them: `showStalls`, `stalled` its samples or nullptr for none,
// `total` all the samples).
std::string shown(const AsmLine& a, bool sass,
                  const std::map<InstructionKey, std::uint64_t>* executed, bool showStalls,
                  const counters::StallRecord* stalled, std::uint64_t total) {
  if (a.kind == AsmKind::Function) return sass ? demangled(a.text) + ":" : a.text;
  if (a.kind == AsmKind::Instruction && sass) {
    char pc[48];
    std::snprintf(pc, sizeof pc, "/*%04llx*/  ", static_cast<unsigned long long>(a.pc));
    std::string out = pc;
    if (executed) {
      const auto it = executed->find({a.function, a.pc});
      char count[16];
      std::snprintf(count, sizeof count, "%6s  ",
                    it == executed->end() ? "-" : compact(it->second).c_str());
      out += count;
    }
    if (showStalls) {
      char share[16];
      if (!stalled || total == 0)
        std::snprintf(share, sizeof share, "%6s  ", "-");
      else
        std::snprintf(share, sizeof share, "%5.1f%%  ",
                      100.0 * double(stalled->total()) / double(total));
      out += share;
    }
    return out + a.text;
  }
  return a.text;
}

}  // namespace

void MachineCodePanel::set(const CompileResult& c) {
  if (!c.ok) {
    ptx_.clear();
    sass_.reset();
    sassError_ = {};
    cubin_.clear();
    listingsChanged();
    return;
  }
  if (c.cubin == cubin_) return;  // the same binary: the panes stand
  cubin_ = c.cubin;
  arch_ = c.arch;
  resources_ = c.resources;
  comparison_.reset();  // it compared another text
  compareError_ = {};
  ptx_ = ptxListing(c.ptx, kProgramName);
  // PTX opens with the compiler's comments and directives: show it from the first kernel.
  for (std::size_t i = 0; i < ptx_.size(); ++i)
    if (ptx_[i].kind == AsmKind::Function) {
      ptxStart_ = static_cast<int>(i);
      break;
    }
  sass_.reset();
  sassError_ = {};
  listingsChanged();
  startSass();  // or, while an older one runs, when it has finished (poll)
}

void MachineCodePanel::startSass() {
  sassJob_.start([cubin = cubin_](AsyncJob<Sass>::Control&) -> Result<Sass> {
    Result<std::vector<AsmLine>> lines = sassListing(cubin, kProgramName);
    if (!lines) return lines.status();
    return Sass{cubin, std::move(*lines)};
  });
}

void MachineCodePanel::setRun(const RunReport* r) {
  setCounts(r ? r->instructions : std::vector<counters::SassRecord>{});
  setStalls(r ? r->stallReasons : std::vector<std::string>{},
            r ? r->stalls : std::vector<counters::StallRecord>{});
}

void MachineCodePanel::setCounts(const std::vector<counters::SassRecord>& instructions) {
  executed_.clear();
  for (const counters::SassRecord& rec : instructions)
    executed_[{rec.function, rec.pcOffset}] = rec.values[int(counters::SassMetric::Instructions)];
}

void MachineCodePanel::setStalls(const std::vector<std::string>& reasons,
                                 const std::vector<counters::StallRecord>& records) {
  stalls_.clear();
  stallReasons_ = reasons;
  stallTotal_ = stallMost_ = 0;
  for (const counters::StallRecord& rec : records) {
    // Only reasons the names cover (the report from the worker was checked; this holds anyway).
    if (std::any_of(rec.samples.begin(), rec.samples.end(), [&](const auto& s) {
          return s.first < 0 || std::size_t(s.first) >= reasons.size();
        }))
      continue;
    stalls_[{rec.function, rec.pcOffset}] = rec;
    stallTotal_ += rec.total();
    stallMost_ = std::max(stallMost_, rec.total());
  }
}

std::string MachineCodePanel::instructionTip(const AsmLine& a) const {
  std::string tip = trf("Line %d of your kernel: click to find it.", a.sourceLine);
  const auto it = stalls_.find({a.function, a.pc});
  if (it == stalls_.end() || stallTotal_ == 0) return tip;
  const counters::StallRecord& rec = it->second;
  tip += "\n\n" + trf("%.1f%% of the samples: its warps were here, and why:",
                      100.0 * double(rec.total()) / double(stallTotal_));
  std::vector<std::pair<std::uint32_t, int>> order;
  for (const auto& [reason, n] : rec.samples)
    order.push_back({n, reason});
  std::sort(order.rbegin(), order.rend());
  for (const auto& [n, reason] : order) {
    const std::string& name = stallReasons_[std::size_t(reason)];
    const counters::StallText* t = counters::stallText(name);
    tip += trf("\n  %.0f%%  %s", 100.0 * double(n) / double(rec.total()),
               t ? tr(t->meaning) : name.c_str());
  }
  return tip;
}

void MachineCodePanel::setSource(const Exercise& e, std::string text) {
  exercise_ = &e;
  text_ = std::move(text);
}

bool MachineCodePanel::compareWith(int variant) {
  if (!exercise_ || !sass_ || compareJob_.running()) return false;
  const VariantInfo& v = variants()[static_cast<std::size_t>(variant)];
  const Exercise& e = *exercise_;
  if (variantRefused(e, v.id)) return false;  // the combo does not offer it
  variant_ = variant;
  compareError_ = {};
  compareJob_.start([&e, text = text_, arch = arch_, base = cubin_,
                     sassA = sass_ ? *sass_ : std::vector<AsmLine>{},
                     id = v.id](AsyncJob<Comparison>::Control&) -> Result<Comparison> {
    const VariantSource s = applyVariant(id, text);
    CompileOptions o;
    o.arch = arch;
    o.extra = s.options;
    Result<CompileResult> c = compileKernel(programSource(e, s.text), entryPoints(e), o);
    if (!c) return c.status();
    if (!c->ok)
      return Status::errorf(N_("The changed text does not compile: %s"),
                            {c->diagnostics.empty() ? c->log : c->diagnostics.front().message});
    Result<std::vector<AsmLine>> sass = sassListing(c->cubin, kProgramName);
    if (!sass) return sass.status();
    Comparison out{base, id, c->resources, std::move(*sass), {}};
    out.rows = diffInstructions(sassA, out.sass);
    return out;
  });
  return true;
}

std::vector<LessonAction> MachineCodePanel::compareActions() {
  std::vector<LessonAction> out;
  for (std::size_t i = 0; i < variants().size(); ++i)
    out.push_back({.id = std::string("compare:") + variants()[i].key,
                   .label = variants()[i].label,
                   .help = variants()[i].help,
                   .start = [this, i] { return compareWith(static_cast<int>(i)); },
                   .pending = [this] { return comparing(); },
                   .cancel = [this] { cancel(); }});
  return out;
}

void MachineCodePanel::poll() {
  if (auto r = compareJob_.take()) {
    if (!*r)
      compareError_ = r->status();
    else if ((*r)->base == cubin_)  // else it compared a binary no longer shown
      comparison_ = std::move(**r);
  }
  if (auto r = sassJob_.take()) {
    if (!*r) {
      sass_.reset();
      sassError_ = r->status();
      listingsChanged();
    } else if ((*r)->cubin == cubin_) {
      sass_ = std::move((*r)->lines);
      sassError_ = {};
      listingsChanged();
    }
  }
  // A compile that came while an older disassembly ran: its own now.
  if (!sass_ && sassError_.ok() && !cubin_.empty() && !sassJob_.running()) startSass();
}

void MachineCodePanel::listingsChanged() {
  bands_.clear();
  for (const AsmLine& a : sass_ ? *sass_ : ptx_) {
    if (a.kind != AsmKind::Instruction || a.sourceLine <= 0) continue;
    if (bands_.size() < static_cast<std::size_t>(a.sourceLine))
      bands_.resize(static_cast<std::size_t>(a.sourceLine), 0);
    bands_[static_cast<std::size_t>(a.sourceLine - 1)] = paletteColour(colourOf(a.sourceLine));
  }
  auto longest = [](const std::vector<AsmLine>& l) {
    std::size_t n = 0;
    for (const AsmLine& a : l)
      n = std::max(n, a.text.size());
    return n;
  };
  ptxLongest_ = longest(ptx_);
  // Before the instruction: the offset (up to 12 characters), the count and the share.
  sassLongest_ = sass_ ? longest(*sass_) + 12 + 2 * kCountWidth : 0;
}

int MachineCodePanel::drawPane(LessonContext& ctx, const char* id,
                               const std::vector<AsmLine>& lines, int selected, int scrollTo,
                               float height) {
  const bool sass = &lines != &ptx_;
  int clicked = 0;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::BeginChild(id, ImVec2(-1, height), true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(ctx.theme.fonts().mono ? ctx.theme.fonts().mono : ImGui::GetFont());
  const float lineH = ImGui::GetTextLineHeight();
  const float charW = ImGui::CalcTextSize("0").x;
  const std::size_t longest = sass ? sassLongest_ : ptxLongest_;
  const float width = std::max(ImGui::GetContentRegionAvail().x, charW * float(longest + 4));
  if (!sass && ptxStart_ >= 0) {
    ImGui::SetScrollY(lineH * float(ptxStart_));
    ptxStart_ = -1;
  }
  if (scrollTo > 0)
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].sourceLine == scrollTo) {
        ImGui::SetScrollY(std::max(0.0f, lineH * float(i) - height / 3));
        break;
      }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 muted = ImGui::GetColorU32(ctx.theme.mutedColour());
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(lines.size()), lineH);
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const AsmLine& a = lines[static_cast<std::size_t>(i)];
      const ImVec2 p = ImGui::GetCursorScreenPos();
      ImGui::PushID(i);
      ImGui::InvisibleButton("##row", ImVec2(width, lineH));
      ImGui::PopID();
      const bool instruction = a.kind == AsmKind::Instruction;
      if (instruction && a.sourceLine > 0) {
        const int c = colourOf(a.sourceLine);
        if (a.sourceLine == selected)
          dl->AddRectFilled(p, ImVec2(p.x + width, p.y + lineH), paletteColour(c, 0.25f));
        dl->AddRectFilled(p, ImVec2(p.x + charW * 0.7f, p.y + lineH), paletteColour(c));
        if (ImGui::IsItemHovered()) {
          ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
          ImGui::SetTooltip("%s", instructionTip(a).c_str());
        }
        if (ImGui::IsItemClicked()) clicked = a.sourceLine;
      }
      const bool showStalls = sass && !stalls_.empty();
      const auto it = showStalls && instruction ? stalls_.find({a.function, a.pc}) : stalls_.end();
      const counters::StallRecord* stalled = it == stalls_.end() ? nullptr : &it->second;
      const std::string s = shown(a, sass, sass && !executed_.empty() ? &executed_ : nullptr,
                                  showStalls, stalled, stallTotal_);
      // Behind the share of the samples, a bar against the instruction with the most: where the
      // warps wait stands out while scrolling.
      if (stalled && stallMost_ > 0) {
        const std::size_t before =
            std::size_t(offsetWidth(a.pc)) + (executed_.empty() ? 0 : kCountWidth);
        const float x0 = p.x + charW * (1.3f + static_cast<float>(before));
        const float w = charW * 6 * float(stalled->total()) / float(stallMost_);
        ImVec4 bar = ctx.theme.warningColour();
        bar.w = 0.35f;
        dl->AddRectFilled(ImVec2(x0, p.y + 1), ImVec2(x0 + w, p.y + lineH - 1),
                          ImGui::ColorConvertFloat4ToU32(bar));
      }
      dl->AddText(ImVec2(p.x + charW * 1.3f, p.y), instruction ? text : muted, s.c_str());
    }
  clipper.End();
  ImGui::PopFont();
  ImGui::EndChild();
  ImGui::PopStyleColor();
  return clicked;
}

void MachineCodePanel::draw(LessonContext& ctx, CodeEditor& editor) {
  poll();
  if (!beginPanel(ctx, "machine_code", "Machine code: PTX and SASS", kPanelCollapsible))
    return endPanel(ctx);
  if (ptx_.empty()) {
    mutedText(ctx.theme, tr("Compile your kernel to see here what the compiler made of it: the "
                            "PTX and the GPU's own instructions (SASS), line by line."));
    return endPanel(ctx);
  }
  // The highlight follows the editor's cursor.
  if (editor.cursorLine() != lastCursor_) {
    lastCursor_ = editor.cursorLine();
    selected_ = lastCursor_;
    scrollTo_ = selected_;
  }
  mutedText(ctx.theme,
            tr("Each colour is one line of your kernel, in the editor's margin and beside every "
               "instruction compiled from it; the line with the cursor is highlighted. PTX is the "
               "portable assembly NVRTC writes; SASS is what the GPU runs, which the driver's "
               "assembler made from it (fewer, larger instructions, registers assigned). Click an "
               "instruction to find its line."));
  // The highlighted line's own text, so that it reads beside its instructions.
  if (selected_ > 0) {
    const std::string& text = editor.text();
    std::size_t begin = 0;
    for (int l = 1; l < selected_ && begin != std::string::npos; ++l) {
      begin = text.find('\n', begin);
      if (begin != std::string::npos) ++begin;
    }
    if (begin != std::string::npos && begin < text.size()) {
      const std::size_t end = text.find('\n', begin);
      std::string line = text.substr(begin, end == std::string::npos ? end : end - begin);
      line.erase(0, line.find_first_not_of(" \t"));
      ImGui::PushStyleColor(ImGuiCol_Text, paletteColour(colourOf(selected_)));
      ImGui::TextUnformatted(trf("Line %d:", selected_).c_str());
      ImGui::PopStyleColor();
      ImGui::SameLine();
      ImGui::PushFont(ctx.theme.fonts().mono ? ctx.theme.fonts().mono : ImGui::GetFont());
      ImGui::TextUnformatted(line.c_str());
      ImGui::PopFont();
      if (static_cast<std::size_t>(selected_) > bands_.size() || !bands_[selected_ - 1])
        mutedText(ctx.theme, tr("No instruction comes from this line (a comment, a declaration, "
                                "or code the compiler folded into other lines)."));
    }
  }
  const float lineH = ImGui::GetTextLineHeightWithSpacing();
  const float height = 16 * lineH;
  const bool twoColumns = ImGui::GetContentRegionAvail().x > 50 * ImGui::GetFontSize();
  int clicked = 0;
  auto ptxPane = [&] {
    ImGui::TextUnformatted(trf("PTX: %d instructions", instructionCount(ptx_)).c_str());
    clicked = std::max(clicked, drawPane(ctx, "##ptx", ptx_, selected_, scrollTo_, height));
  };
  auto sassPane = [&] {
    if (sass_) {
      ImGui::TextUnformatted(
          trf("SASS for sm_%d: %d instructions", arch_, instructionCount(*sass_)).c_str());
      // Which columns follow the offset, as the last run measured them.
      const char* columns =
          !executed_.empty() && !stalls_.empty()
              ? N_("(after the offset: times warps executed it, and its share "
                   "of the stall samples; last run)")
          : !executed_.empty() ? N_("(after the offset: times warps executed it, last run)")
          : !stalls_.empty()   ? N_("(after the offset: its share of the stall samples, last run)")
                               : nullptr;
      if (columns) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.mutedColour());
        ImGui::TextUnformatted(tr(columns));
        ImGui::PopStyleColor();
      }
      clicked = std::max(clicked, drawPane(ctx, "##sass", *sass_, selected_, scrollTo_, height));
    } else if (!sassError_.ok()) {
      ImGui::TextUnformatted(tr("SASS"));
      errorText(ctx.theme, sassError_);
    } else {
      ImGui::TextUnformatted(tr("SASS"));
      mutedText(ctx.theme, tr("Disassembling with nvdisasm..."));
    }
  };
  if (twoColumns && ImGui::BeginTable("##asm", 2, ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ptxPane();
    ImGui::TableNextColumn();
    sassPane();
    ImGui::EndTable();
  } else {
    ptxPane();
    sassPane();
  }
  scrollTo_ = 0;
  if (clicked > 0) {
    selected_ = clicked;
    scrollTo_ = clicked;  // the other pane follows at the next frame
    editor.gotoLine(clicked);
  }
  if (sass_) drawCompare(ctx, height);
  endPanel(ctx);
}

void MachineCodePanel::drawCompare(LessonContext& ctx, float height) {
  ImGui::Spacing();
  const std::span<const VariantInfo> all = variants();
  ImGui::TextUnformatted(tr("Compare with the same kernel"));
  helpTooltip(all[static_cast<std::size_t>(variant_)].help);
  // The choice and its button on one line, the button's width kept free for it.
  const char* compare = tr("Compare");
  const float buttonW = ImGui::CalcTextSize(compare).x + 2 * ImGui::GetStyle().FramePadding.x;
  ImGui::SetNextItemWidth(std::max(
      4 * ImGui::GetFontSize(),
      std::min(ImGui::GetContentRegionAvail().x - buttonW - ImGui::GetStyle().ItemSpacing.x,
               24 * ImGui::GetFontSize())));
  if (ImGui::BeginCombo("##variant", tr(all[static_cast<std::size_t>(variant_)].label))) {
    for (std::size_t i = 0; i < all.size(); ++i) {
      const char* refused = exercise_ ? variantRefused(*exercise_, all[i].id) : nullptr;
      if (ImGui::Selectable(tr(all[i].label), static_cast<int>(i) == variant_,
                            refused ? ImGuiSelectableFlags_Disabled : 0))
        variant_ = static_cast<int>(i);
      if (refused && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", tr(refused));
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  const bool refused =
      exercise_ && variantRefused(*exercise_, all[static_cast<std::size_t>(variant_)].id);
  ImGui::BeginDisabled(compareJob_.running() || !exercise_ || refused);
  if (button("Compare")) compareWith(variant_);
  ImGui::EndDisabled();
  errorText(ctx.theme, compareError_);
  if (compareJob_.running()) mutedText(ctx.theme, tr("Compiling and disassembling..."));
  if (!comparison_ || !sass_) return;
  const Comparison& c = *comparison_;
  const VariantInfo* v = nullptr;
  for (const VariantInfo& x : all)
    if (x.id == c.variant) v = &x;
  int onlyA = 0, onlyB = 0;
  for (const DiffRow& r : c.rows) {
    onlyA += r.b < 0;
    onlyB += r.a < 0;
  }
  textWrapped("%s", trf("Yours: %d SASS instructions; %s: %d. %d only in yours (red), %d only in "
                        "the other (green), matched by operation.",
                        instructionCount(*sass_), v ? tr(v->label) : "", instructionCount(c.sass),
                        onlyA, onlyB)
                        .c_str());
  if (instructionCount(*sass_) > 4000 || instructionCount(c.sass) > 4000)
    mutedText(ctx.theme, tr("Only the first 4,000 instructions of each listing are compared."));
  for (const PtxasInfo& mine : resources_)
    for (const PtxasInfo& other : c.resources)
      if (mine.function == other.function)
        mutedText(ctx.theme, trf("%s: %d registers per thread in yours, %d in the other.",
                                 demangled(mine.function).c_str(), mine.registers, other.registers)
                                 .c_str());
  // The two listings side by side, row by row.
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::BeginChild("##diff", ImVec2(-1, height), true);
  ImGui::PushFont(ctx.theme.fonts().mono ? ctx.theme.fonts().mono : ImGui::GetFont());
  const float lineH = ImGui::GetTextLineHeight();
  const float half = ImGui::GetContentRegionAvail().x / 2;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImVec4 bad = ctx.theme.errorColour(), good = ctx.theme.goodColour();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(c.rows.size()), lineH);
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const DiffRow& r = c.rows[static_cast<std::size_t>(i)];
      if (r.a >= static_cast<int>(sass_->size()) || r.b >= static_cast<int>(c.sass.size())) {
        ImGui::Dummy(ImVec2(2 * half, lineH));  // never: poll drops comparisons of older listings
        continue;
      }
      const ImVec2 p = ImGui::GetCursorScreenPos();
      ImGui::Dummy(ImVec2(2 * half, lineH));
      if (r.a >= 0) {
        if (r.b < 0)
          dl->AddRectFilled(p, ImVec2(p.x + half - 4, p.y + lineH),
                            ImGui::GetColorU32(ImVec4(bad.x, bad.y, bad.z, 0.25f)));
        dl->PushClipRect(p, ImVec2(p.x + half - 4, p.y + lineH), true);
        dl->AddText(p, text, (*sass_)[static_cast<std::size_t>(r.a)].text.c_str());
        dl->PopClipRect();
      }
      if (r.b >= 0) {
        const ImVec2 q(p.x + half, p.y);
        if (r.a < 0)
          dl->AddRectFilled(q, ImVec2(q.x + half, q.y + lineH),
                            ImGui::GetColorU32(ImVec4(good.x, good.y, good.z, 0.25f)));
        dl->PushClipRect(q, ImVec2(q.x + half, q.y + lineH), true);
        dl->AddText(q, text, c.sass[static_cast<std::size_t>(r.b)].text.c_str());
        dl->PopClipRect();
      }
    }
  clipper.End();
  ImGui::PopFont();
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

}  // namespace cudalab::pg
