#include "commands/check_command.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/format.hpp"
#include "playground/compile.hpp"
#include "playground/grading.hpp"
#include "playground/machine_code.hpp"
#include "playground/playground.hpp"
#include "playground/worker.hpp"

namespace cudalab {

using namespace playground;

namespace {

CommandResult refuse(const std::string& sentence) {
  return {2, "", "cudalab check: " + sentence + "\n"};
}

// "256" or "16,16" or "64,2,1" as a Dim3; nullopt when it is not that.
std::optional<Dim3> parseDim(const std::string& s) {
  std::smatch m;
  if (!std::regex_match(s, m, std::regex(R"((\d{1,10})(?:,(\d{1,10}))?(?:,(\d{1,10}))?)")))
    return std::nullopt;
  Dim3 d;
  d.x = std::stoll(m[1]);
  if (m[2].matched) d.y = std::stoll(m[2]);
  if (m[3].matched) d.z = std::stoll(m[3]);
  return d;
}

// One file's outcome.
struct FileVerdict {
  std::string file;
  bool compiled = false, correct = false;
  std::string verdict;  // English: what was right or wrong
  double ms = 0;        // at the exercise's size
  std::optional<Grade> grade;
  nlohmann::json lines;   // with --lines: per source line and per instruction (linesJson)
  nlohmann::json stalls;  // with --stalls: the PC samples (stallsJson)
};

// The worker's counters per source line and per machine instruction, each instruction with the
// line the SASS pane gives it, for tools/ncu_counters_check.py --playground.
nlohmann::json linesJson(const RunReport& r, const CompileResult& c) {
  static constexpr const char* kNames[] = {"inst_executed",     "thread_inst_executed",
                                           "global_sectors",    "global_requests",
                                           "shared_wavefronts", "shared_requests"};
  static_assert(std::size(kNames) == int(counters::SassMetric::Count));
  auto values = [](const std::uint64_t* v) {
    nlohmann::json j;
    for (int m = 0; m < int(counters::SassMetric::Count); ++m)
      j[kNames[m]] = v[m];
    return j;
  };
  nlohmann::json j = {{"problem", r.linesProblem},
                      {"lines", nlohmann::json::array()},
                      {"instructions", nlohmann::json::array()}};
  for (const counters::LineCounters& l : r.lines) {
    nlohmann::json row = values(l.values);
    row["line"] = l.line;
    row["sass_on_line"] = l.instructionsOnLine;
    j["lines"].push_back(std::move(row));
  }
  // The SASS pane's line of each instruction (nvdisasm's line information), where nvdisasm is here.
  std::map<std::pair<std::string, std::uint64_t>, int> lineOf;
  if (Result<std::vector<AsmLine>> sass = sassListing(c.cubin, kProgramName))
    for (const AsmLine& a : *sass)
      if (a.kind == AsmKind::Instruction) lineOf[{a.function, a.pc}] = a.sourceLine;
  for (const counters::SassRecord& s : r.instructions) {
    nlohmann::json row = values(s.values);
    row["function"] = s.function;
    row["pc"] = s.pcOffset;
    const auto it = lineOf.find({s.function, s.pcOffset});
    if (it != lineOf.end()) row["line"] = it->second;
    j["instructions"].push_back(std::move(row));
  }
  return j;
}

std::string firstError(const CompileResult& c) {
  for (const Diagnostic& d : c.diagnostics)
    if (d.severity == Severity::Error)
      return "line " + std::to_string(d.line) + ": " +
             (d.format ? fillFormat(d.format, d.values) : d.message);
  return "the compiler gave no message";
}

// The PC samples: the reasons' names, and per instruction (with its line as the editor's margin
// gives it: a line of the program, 0 for header code) its samples per reason by name, for
// tools/ncu_counters_check.py --playground.
nlohmann::json stallsJson(const RunReport& r) {
  nlohmann::json j = {{"problem", r.stallsProblem},
                      {"total_samples", r.stallSamples},
                      {"dropped_samples", r.stallSamplesDropped},
                      {"reasons", r.stallReasons},
                      {"instructions", nlohmann::json::array()}};
  for (const counters::StallRecord& s : r.stalls) {
    nlohmann::json samples = nlohmann::json::object();
    for (const auto& [reason, n] : s.samples)
      samples[r.stallReasons[static_cast<std::size_t>(reason)]] = n;
    j["instructions"].push_back(
        {{"function", s.function}, {"pc", s.pcOffset}, {"line", s.line}, {"samples", samples}});
  }
  return j;
}

FileVerdict checkFile(const std::string& file, const std::string& text, const Exercise& e,
                      const RunParams& p, bool allSizes, bool lines, bool stalls, int arch,
                      WorkerClient& worker) {
  FileVerdict v;
  v.file = file;
  CompileOptions o;
  o.arch = arch;
  o.learnerLines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  Result<CompileResult> c = compileKernel(programSource(e, text), entryPoints(e), o);
  if (!c) {
    v.verdict = "could not compile: " + c.status().sentence();
    return v;
  }
  if (!c->ok) {
    v.verdict = "does not compile (" + firstError(*c) + ")";
    return v;
  }
  v.compiled = true;
  if (allSizes) {
    Grade g = gradeAtEverySize(e, p, [&](const RunParams& q) { return worker.run(*c, e, q); });
    v.correct = g.passed();
    std::string failed;
    for (const SizeVerdict& s : g.sizes) {
      if (s.c.n == p.n) v.ms = s.ms;
      if (s.ran && s.ok) continue;
      // The counter's N is always 1: its cases differ by their launch, which `why` names.
      const std::string where =
          e.kind == Kind::Counter ? s.c.why.english() : "N = " + thousands(s.c.n);
      failed += (failed.empty() ? "" : "; ") + where + ": " + englishOf(s.why);
    }
    v.verdict = v.correct ? "correct at every one of " + std::to_string(g.sizes.size()) + " sizes"
                          : "wrong at " + std::to_string(g.failed()) + " of " +
                                std::to_string(g.sizes.size()) + " sizes (" + failed + ")";
    v.grade = std::move(g);
    return v;
  }
  RunParams q = p;
  q.compare = false;
  q.lineCounters = lines;
  q.stalls = stalls;
  Result<RunReport> r = worker.run(*c, e, q);
  if (!r) {
    v.verdict = "did not run to the end: " + r.status().sentence();
    return v;
  }
  v.correct = r->ok;
  v.ms = r->medianMs;
  if (lines) v.lines = linesJson(*r, *c);
  if (stalls) v.stalls = stallsJson(*r);
  v.verdict = r->ok ? "correct" : "wrong: " + englishOf(verdictOf(*r));
  return v;
}

}  // namespace

CommandResult runCheckCommand(const CheckCommand& c) {
  // The input first: every refusal before anything runs.
  if (c.lines && (!c.json || c.allSizes))
    return refuse("--lines goes with --json, at the exercise's size (not with --sizes all).");
  if (c.stalls && (!c.json || c.allSizes))
    return refuse("--stalls goes with --json, at the exercise's size (not with --sizes all).");
  const Exercise* e = findExercise(c.exercise);
  if (!e) {
    std::string ids;
    for (const Exercise& x : exercises())
      ids += std::string(ids.empty() ? "" : ", ") + x.id;
    return refuse("there is no exercise \"" + c.exercise + "\"; the exercises are: " + ids + ".");
  }
  std::vector<std::pair<std::string, std::string>> files;  // path, text
  for (const std::string& path : c.paths) {
    std::error_code ec;
    std::vector<std::string> here;
    if (std::filesystem::is_directory(path, ec)) {
      // Without exceptions: a link loop or an unreadable entry is left out.
      for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end;
           it.increment(ec)) {
        std::error_code kind;
        if (it->is_regular_file(kind) && it->path().extension() == ".cu")
          here.push_back(it->path().string());
      }
      std::sort(here.begin(), here.end());
      if (here.empty()) return refuse("the folder \"" + path + "\" holds no .cu file.");
    } else {
      here.push_back(path);
    }
    for (const std::string& f : here) {
      std::ifstream in(f, std::ios::binary);
      if (!in) return refuse("cannot read \"" + f + "\": no such file, or no permission.");
      std::ostringstream ss;
      ss << in.rdbuf();
      if (ss.str().find('\0') != std::string::npos)
        return refuse("\"" + f + "\" is not a text file (it holds NUL bytes): give .cu files.");
      files.emplace_back(f, ss.str());
    }
  }
  if (files.empty()) return refuse("give the files or folder to check.");
  RunParams p = defaultRunParams(*e);
  if (!c.grid.empty() || !c.block.empty()) {
    const std::optional<Dim3> grid = c.grid.empty() ? p.launch.grid : parseDim(c.grid),
                              block = c.block.empty() ? p.launch.block : parseDim(c.block);
    if (!grid)
      return refuse("--grid takes X,Y,Z (Y and Z may be left out), not \"" + c.grid + "\".");
    if (!block)
      return refuse("--block takes X,Y,Z (Y and Z may be left out), not \"" + c.block + "\".");
    p.launch = {*grid, *block};
    if (!c.grid.empty()) p.autoGrid = false;  // the teacher's grid, as given
  }
  WorkerClient worker(workerCommand(false, c.executable.empty() ? selfExecutable() : c.executable));
  Result<WorkerHello> hello = worker.hello();
  if (!hello) return refuse("the worker process did not start: " + hello.status().sentence());
  if (!hello->hasDevice)
    return refuse(
        "no CUDA device here: checking runs the kernels on a GPU (`cudalab compile` "
        "checks that they compile). " +
        hello->problem);
  if (Status s = validate(*e, p, hello->limits); !s) return refuse(s.sentence());

  std::vector<FileVerdict> verdicts;
  for (const auto& [file, text] : files)
    verdicts.push_back(
        checkFile(file, text, *e, p, c.allSizes, c.lines, c.stalls, hello->arch, worker));
  const long correct = std::count_if(verdicts.begin(), verdicts.end(),
                                     [](const FileVerdict& v) { return v.correct; });
  CommandResult out;
  out.exitCode = correct == static_cast<long>(verdicts.size()) ? 0 : 1;
  if (c.json) {
    nlohmann::json j = {{"exercise", e->id},
                        {"device", hello->device},
                        {"all_sizes", c.allSizes},
                        {"correct", correct},
                        {"files", nlohmann::json::array()}};
    for (const FileVerdict& v : verdicts) {
      nlohmann::json f = {{"file", v.file},
                          {"compiled", v.compiled},
                          {"correct", v.correct},
                          {"verdict", v.verdict},
                          {"ms", v.ms}};
      if (v.grade)
        for (const SizeVerdict& s : v.grade->sizes)
          f["sizes"].push_back({{"n", s.c.n},
                                {"why", s.c.why.english()},
                                {"ran", s.ran},
                                {"correct", s.ran && s.ok},
                                {"verdict", englishOf(s.why)},
                                {"ms", s.ms}});
      if (!v.lines.is_null()) f["counters"] = v.lines;
      if (!v.stalls.is_null()) f["stalls"] = v.stalls;
      j["files"].push_back(std::move(f));
    }
    out.out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    return out;
  }
  std::string& t = out.out;
  t += "Exercise " + std::string(e->id) + " on " + hello->device +
       (c.allSizes ? ", at every size" : ", at N = " + thousands(p.n)) + ":\n\n";
  t += "| file | verdict | ms |\n| --- | --- | ---: |\n";
  char ms[32];
  for (const FileVerdict& v : verdicts) {
    std::snprintf(ms, sizeof ms, "%.3f", v.ms);
    t += "| " + v.file + " | " + v.verdict + " | " + (v.ms > 0 ? ms : "") + " |\n";
  }
  t += "\n" + std::to_string(correct) + " of " + std::to_string(verdicts.size()) +
       " files correct.\n";
  return out;
}

}  // namespace cudalab
