#include "commands/compile_command.hpp"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/runtime_info.hpp"
#include "playground/compare.hpp"
#include "playground/compile.hpp"
#include "playground/machine_code.hpp"
#include "playground/playground.hpp"
#include "playground/source_check.hpp"

namespace cudalab {

using namespace playground;

namespace {

CommandResult refuse(const std::string& sentence) {
  return {2, "", "cudalab compile: " + sentence + "\n"};
}

const char* severityName(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "remark";
}

std::string messageOf(const Diagnostic& d) {
  return d.format ? fillFormat(d.format, d.values) : d.message;
}

const char* kindName(AsmKind k) {
  switch (k) {
    case AsmKind::Instruction:
      return "instruction";
    case AsmKind::Function:
      return "function";
    case AsmKind::Label:
      return "label";
    case AsmKind::Other:
      return "other";
  }
  return "other";
}

nlohmann::json listingJson(const std::vector<AsmLine>& l, bool sass) {
  nlohmann::json out = nlohmann::json::array();
  for (const AsmLine& a : l) {
    nlohmann::json j = {{"kind", kindName(a.kind)}, {"text", a.text}, {"line", a.sourceLine}};
    if (!a.function.empty()) j["function"] = a.function;
    if (a.kind == AsmKind::Instruction && sass) j["pc"] = a.pc;
    out.push_back(std::move(j));
  }
  return out;
}

// "  12 | text": the source line (blank where none), then the listing's line.
std::string listingText(const std::vector<AsmLine>& l, bool sass) {
  std::string out;
  char buf[48];
  for (const AsmLine& a : l) {
    if (a.kind == AsmKind::Instruction && a.sourceLine > 0)
      std::snprintf(buf, sizeof buf, "%5d | ", a.sourceLine);
    else
      std::snprintf(buf, sizeof buf, "      | ");
    out += buf;
    if (a.kind == AsmKind::Function && sass) {
      out += demangled(a.text) + ":";
    } else if (a.kind == AsmKind::Instruction && sass) {
      std::snprintf(buf, sizeof buf, "/*%04llx*/ ", static_cast<unsigned long long>(a.pc));
      out += buf + a.text;
    } else {
      out += a.text;
    }
    out += '\n';
  }
  return out;
}

// --compare: the same text with one thing changed, compiled and disassembled beside `mine`
// (its compile and SASS). Fills `text` and `json`; a failure is a sentence for stderr.
Status compareWith(const VariantInfo& v, const std::string& source, const Exercise* ex,
                   CompileOptions o, const CompileResult& mine,
                   const std::vector<AsmLine>& mineSass, std::string& text, nlohmann::json& json) {
  const VariantSource s = applyVariant(v.id, source);
  o.extra.insert(o.extra.end(), s.options.begin(), s.options.end());
  Result<CompileResult> other = ex ? compileKernel(programSource(*ex, s.text), entryPoints(*ex), o)
                                   : compileKernel(s.text, {}, o);
  if (!other) return other.status();
  if (!other->ok) return Status::error("the changed text does not compile: " + other->log);
  Result<std::vector<AsmLine>> sass = sassListing(other->cubin, kProgramName);
  if (!sass) return sass.status();
  const std::vector<DiffRow> rows = diffInstructions(mineSass, *sass);
  int onlyMine = 0, onlyOther = 0;
  for (const DiffRow& r : rows) {
    onlyMine += r.b < 0;
    onlyOther += r.a < 0;
  }
  auto count = [](const std::vector<AsmLine>& l) {
    return std::count_if(l.begin(), l.end(),
                         [](const AsmLine& a) { return a.kind == AsmKind::Instruction; });
  };
  text += "\nCompared with the same text " + std::string(v.label) + " (" + v.key + "):\n";
  json = {{"variant", v.key}, {"instructions", {count(mineSass), count(*sass)}}};
  for (const PtxasInfo& a : mine.resources)
    for (const PtxasInfo& b : other->resources)
      if (a.function == b.function) {
        text += "  " + demangled(a.function) + ": " + std::to_string(a.registers) + " registers, " +
                std::to_string(b.registers) + " with the change\n";
        json["registers"].push_back(
            {{"kernel", a.function}, {"yours", a.registers}, {"other", b.registers}});
      }
  text += "  SASS: " + std::to_string(count(mineSass)) + " instructions, " +
          std::to_string(count(*sass)) + " with the change; " + std::to_string(onlyMine) +
          " only in yours (-), " + std::to_string(onlyOther) + " only in the other (+)\n";
  json["rows"] = nlohmann::json::array();
  for (const DiffRow& r : rows) {
    const std::string* a = r.a >= 0 ? &mineSass[static_cast<std::size_t>(r.a)].text : nullptr;
    const std::string* b = r.b >= 0 ? &(*sass)[static_cast<std::size_t>(r.b)].text : nullptr;
    text += std::string(a && b ? "   " : a ? " - " : " + ") + (a ? *a : *b) + "\n";
    json["rows"].push_back({{"yours", a ? nlohmann::json(*a) : nlohmann::json()},
                            {"other", b ? nlohmann::json(*b) : nlohmann::json()}});
  }
  return {};
}

}  // namespace

CommandResult runCompileCommand(const CompileCommand& c) {
  // The input, refused with one sentence where it cannot be what the learner meant.
  std::ifstream in(c.file, std::ios::binary);
  if (!in) return refuse("cannot read \"" + c.file + "\": no such file, or no permission.");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.find('\0') != std::string::npos)
    return refuse("\"" + c.file + "\" is not a text file (it holds NUL bytes): give a .cu file.");
  const Exercise* ex = nullptr;
  if (!c.exercise.empty()) {
    ex = findExercise(c.exercise);
    if (!ex) {
      std::string ids;
      for (const Exercise& e : exercises())
        ids += std::string(ids.empty() ? "" : ", ") + e.id;
      return refuse("there is no exercise \"" + c.exercise + "\"; the exercises are: " + ids + ".");
    }
  }
  const VariantInfo* variant = nullptr;
  if (!c.compare.empty()) {
    std::string keys;
    for (const VariantInfo& v : variants()) {
      if (c.compare == v.key) variant = &v;
      keys += std::string(keys.empty() ? "" : ", ") + v.key;
    }
    if (!variant) return refuse("--compare takes one of " + keys + ", not \"" + c.compare + "\".");
    if (const char* why = ex ? variantRefused(*ex, variant->id) : nullptr)
      return refuse(std::string("--compare ") + variant->key + " does not apply to the exercise " +
                    ex->id + ": " + why);
  }
  CompileOptions o;
  if (!c.arch.empty()) {
    std::smatch m;
    if (!std::regex_match(c.arch, m, std::regex(R"((?:sm_)?(\d{2,3}))")))
      return refuse("--arch takes an architecture like sm_90 or 90, not \"" + c.arch + "\".");
    o.arch = std::stoi(m[1]);
    if (o.arch < 50 || o.arch > 121)
      return refuse("--arch sm_" + std::to_string(o.arch) +
                    " is not an architecture NVRTC compiles for (sm_50 to sm_121).");
  } else if (queryRuntime().hasDevice()) {
    o.arch = currentComputeCapability();  // 0 (sm_90) when the device cannot say
  }
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  o.learnerLines = lines;
  o.useCache = false;
  Result<CompileResult> r = ex ? compileKernel(programSource(*ex, text), entryPoints(*ex), o)
                               : compileKernel(text, {}, o);
  if (!r) return {2, "", "cudalab compile: " + r.status().sentence() + "\n"};
  std::vector<Diagnostic> all = r->diagnostics;
  for (Diagnostic& d : lint(text))
    all.push_back(std::move(d));
  std::vector<AsmLine> ptx;
  std::optional<Result<std::vector<AsmLine>>> sass;
  if (r->ok && (c.ptx || c.json)) ptx = ptxListing(r->ptx, kProgramName);
  if (r->ok && (c.sass || variant)) sass = sassListing(r->cubin, kProgramName);
  std::string compared;
  nlohmann::json comparedJson;
  Status compareError;
  if (r->ok && variant)
    compareError = *sass ? compareWith(*variant, text, ex, o, *r, **sass, compared, comparedJson)
                         : sass->status();

  CommandResult out;
  out.exitCode = r->ok ? 0 : 1;
  if (c.json) {
    nlohmann::json j = {{"file", c.file},
                        {"exercise", ex ? ex->id : ""},
                        {"ok", r->ok},
                        {"arch", "sm_" + std::to_string(r->arch)},
                        {"nvrtc", r->nvrtcVersion},
                        {"ms", r->ms},
                        {"options", r->options}};
    j["diagnostics"] = nlohmann::json::array();
    for (const Diagnostic& d : all)
      j["diagnostics"].push_back({{"line", d.line},
                                  {"severity", severityName(d.severity)},
                                  {"from", d.fromWhom},
                                  {"message", messageOf(d)}});
    j["resources"] = nlohmann::json::array();
    for (const PtxasInfo& p : r->resources)
      j["resources"].push_back({{"kernel", p.function},
                                {"registers", p.registers},
                                {"shared_bytes", p.sharedBytes},
                                {"stack_bytes", p.stackBytes},
                                {"spill_stores", p.spillStores},
                                {"spill_loads", p.spillLoads}});
    if (c.ptx) j["ptx"] = listingJson(ptx, false);
    if (sass && c.sass) {
      if (*sass)
        j["sass"] = listingJson(**sass, true);
      else
        j["sass_error"] = sass->status().sentence();
    }
    if (variant) {
      if (compareError.ok())
        j["compare"] = comparedJson;
      else
        j["compare_error"] = compareError.sentence();
    }
    out.out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    return out;
  }
  std::string& o2 = out.out;
  for (const Diagnostic& d : all)
    o2 += c.file + ":" + std::to_string(d.line) + ": " + severityName(d.severity) + ": " +
          messageOf(d) + (d.fromWhom == "cudalab" ? " (cudalab)" : "") + "\n";
  if (!r->ok) {
    if (r->diagnostics.empty()) o2 += r->log;
    o2 += c.file + ": did not compile.\n";
    return out;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: compiled for sm_%d with NVRTC %s in %.1f ms.\n",
                c.file.c_str(), r->arch, r->nvrtcVersion.c_str(), r->ms);
  o2 += buf;
  for (const PtxasInfo& p : r->resources) {
    std::snprintf(buf, sizeof buf,
                  "  %s: %d registers, %lld bytes shared, %lld bytes stack, %lld spill stores, "
                  "%lld spill loads\n",
                  p.function.c_str(), p.registers, p.sharedBytes, p.stackBytes, p.spillStores,
                  p.spillLoads);
    o2 += buf;
  }
  if (c.ptx)
    o2 += "\nPTX (the line of " + c.file + " each instruction came from on the left):\n" +
          listingText(ptx, false);
  if (sass && c.sass) {
    if (*sass) {
      o2 +=
          "\nSASS for sm_" + std::to_string(r->arch) + " (nvdisasm):\n" + listingText(**sass, true);
    } else {
      out.err += "cudalab compile: " + sass->status().sentence() + "\n";
    }
  }
  if (variant) {
    if (compareError.ok())
      o2 += compared;
    else
      out.err += "cudalab compile: --compare: " + compareError.sentence() + "\n";
  }
  return out;
}

}  // namespace cudalab
