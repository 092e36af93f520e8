// Messages between the app and the worker: framing, deadlines, and the JSON of runs and reports.
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "common/phrase_json.hpp"
#include "playground/worker.hpp"

namespace cudalab::playground {

namespace {

// "CLW1", the head's length, the number of attachments, then each attachment's length.
constexpr char kMagic[4] = {'C', 'L', 'W', '1'};

Status writeAll(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      return Status::error(std::string("The worker process is not listening (") +
                           std::strerror(errno) + ").");
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return {};
}

Status readAll(int fd, void* data, std::size_t n, double deadline) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    int waitMs = -1;
    if (deadline >= 0) {
      const double left = deadline - steadySeconds();
      if (left <= 0) return Status::error("timeout");
      waitMs = static_cast<int>(left * 1000) + 1;
    }
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, waitMs);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return Status::error("timeout");
    const ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0) return Status::error("eof");
    if (got < 0) return Status::error(std::string("read failed: ") + std::strerror(errno));
    p += got;
    n -= static_cast<std::size_t>(got);
  }
  return {};
}

}  // namespace

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status writeMessage(int fd, const Message& m) {
  const std::string head = m.head.dump();
  if (head.size() > kMaxHeadBytes || m.blobs.size() > kMaxBlobs)
    return Status::error("A message to the worker is too large.");
  std::string frame(kMagic, 4);
  auto put32 = [&](std::uint32_t v) { frame.append(reinterpret_cast<const char*>(&v), 4); };
  auto put64 = [&](std::uint64_t v) { frame.append(reinterpret_cast<const char*>(&v), 8); };
  put32(static_cast<std::uint32_t>(head.size()));
  put32(static_cast<std::uint32_t>(m.blobs.size()));
  for (const std::string& b : m.blobs)
    put64(b.size());
  CUDALAB_TRY(writeAll(fd, frame.data(), frame.size()));
  CUDALAB_TRY(writeAll(fd, head.data(), head.size()));
  for (const std::string& b : m.blobs)
    CUDALAB_TRY(writeAll(fd, b.data(), b.size()));
  return {};
}

Result<Message> readMessage(int fd, double deadline) {
  char fixed[12];
  CUDALAB_TRY(readAll(fd, fixed, sizeof fixed, deadline));
  if (std::memcmp(fixed, kMagic, 4) != 0)
    return Status::error("bad message: it does not start as a cudalab worker message");
  std::uint32_t headSize = 0, blobCount = 0;
  std::memcpy(&headSize, fixed + 4, 4);
  std::memcpy(&blobCount, fixed + 8, 4);
  if (headSize > kMaxHeadBytes || blobCount > kMaxBlobs)
    return Status::error("bad message: its sizes are out of range");
  std::vector<std::uint64_t> sizes(blobCount);
  if (blobCount > 0) CUDALAB_TRY(readAll(fd, sizes.data(), 8 * sizes.size(), deadline));
  for (std::uint64_t s : sizes)
    if (s > kMaxBlobBytes) return Status::error("bad message: an attachment is too large");
  std::string head(headSize, '\0');
  CUDALAB_TRY(readAll(fd, head.data(), head.size(), deadline));
  Message m;
  m.head = nlohmann::json::parse(head, nullptr, false);
  if (m.head.is_discarded() || !m.head.is_object())
    return Status::error("bad message: its head is not a JSON object");
  for (std::uint64_t s : sizes) {
    m.blobs.emplace_back(static_cast<std::size_t>(s), '\0');
    CUDALAB_TRY(readAll(fd, m.blobs.back().data(), m.blobs.back().size(), deadline));
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

namespace {

nlohmann::json dimJson(const Dim3& d) {
  return nlohmann::json::array({d.x, d.y, d.z});
}

// JSON has no NaN or infinity: they travel as null and come back as NaN (a poisoned element).
nlohmann::json jnum(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
double jget(const nlohmann::json& j) {
  return j.is_null() ? std::nan("") : j.get<double>();
}

Dim3 dimFrom(const nlohmann::json& j) {
  return {j.at(0).get<long long>(), j.at(1).get<long long>(), j.at(2).get<long long>()};
}

// Comparison::Outputs by name, so the JSON reads without the enum's order.
constexpr const char* kOutputsNames[] = {"not_compared", "identical", "differ", "unreadable"};

const char* outputsName(Comparison::Outputs o) {
  return kOutputsNames[static_cast<int>(o)];
}

Comparison::Outputs outputsFrom(const std::string& name) {
  for (int i = 0; i < static_cast<int>(std::size(kOutputsNames)); ++i)
    if (name == kOutputsNames[i]) return static_cast<Comparison::Outputs>(i);
  throw std::invalid_argument("unknown comparison outputs \"" + name + "\"");
}

nlohmann::json optionalJson(const std::optional<long long>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::optional<long long> optionalFrom(const nlohmann::json& j) {
  return j.is_null() ? std::nullopt : std::optional<long long>(j.get<long long>());
}

}  // namespace

nlohmann::json toJson(const RunParams& p) {
  return {{"exercise", p.exercise},
          {"n", p.n},
          {"bins", p.bins},
          {"grid", dimJson(p.launch.grid)},
          {"block", dimJson(p.launch.block)},
          {"auto_grid", p.autoGrid},
          {"runs", p.runs},
          {"timeout_s", p.timeoutSeconds},
          {"seed", p.seed},
          {"compare", p.compare},
          {"line_counters", p.lineCounters},
          {"line_kernel", p.lineKernel},
          {"stalls", p.stalls}};
}

Result<RunParams> runParamsFromJson(const nlohmann::json& j) {
  try {
    RunParams p;
    p.exercise = j.at("exercise").get<std::string>();
    p.n = j.at("n").get<long long>();
    p.bins = j.at("bins").get<int>();
    p.launch.grid = dimFrom(j.at("grid"));
    p.launch.block = dimFrom(j.at("block"));
    p.autoGrid = j.at("auto_grid").get<bool>();
    p.runs = j.at("runs").get<int>();
    p.timeoutSeconds = j.at("timeout_s").get<double>();
    p.seed = j.at("seed").get<std::uint64_t>();
    p.compare = j.at("compare").get<bool>();
    p.lineCounters = j.value("line_counters", false);
    p.lineKernel = j.value("line_kernel", 0);
    p.stalls = j.value("stalls", false);
    return p;
  } catch (const std::exception& e) {
    return Status::error(std::string("bad run request: ") + e.what());
  }
}

nlohmann::json toJson(const RunReport& r) {
  nlohmann::json j = {{"ok", r.ok},
                      {"summary", r.summary},
                      {"sum", optionalJson(r.sum)},
                      {"exact_sum", optionalJson(r.exactSum)},
                      {"checked", r.checked},
                      {"wrong", r.wrong},
                      {"unwritten", r.unwritten},
                      {"past_end", r.pastEnd},
                      {"before_start", r.beforeStart},
                      {"max_abs_error", jnum(r.maxAbsError)},
                      {"cells_wide", r.cellsWide},
                      {"cell_span", r.cellSpan},
                      {"guard_span", r.guardSpan},
                      {"kernel_ms", r.kernelMs},
                      {"median_ms", r.medianMs},
                      {"bytes", r.bytes},
                      {"flops", r.flops},
                      {"counts", r.counts},
                      {"bins_got", r.binsGot},
                      {"bins_expected", r.binsExpected},
                      {"load_ms", r.loadMs},
                      {"device", r.device},
                      {"registers", r.resources.registers},
                      {"static_shared", r.resources.staticShared},
                      {"local_bytes", r.resources.localBytes},
                      {"const_bytes", r.resources.constBytes},
                      {"max_threads", r.resources.maxThreadsPerBlock},
                      {"blocks_per_sm", r.resources.blocksPerSM}};
  j["first"] = nlohmann::json::array();
  for (const Mismatch& m : r.first)
    j["first"].push_back({m.index, jnum(m.expected), jnum(m.got), m.unwritten});
  j["comparisons"] = nlohmann::json::array();
  for (const Comparison& c : r.comparisons)
    j["comparisons"].push_back({{"label", c.label},
                                {"ms", jnum(c.ms)},
                                {"ok", c.ok},
                                {"how", c.how},
                                {"outputs", outputsName(c.outputs)},
                                {"differing", c.differing},
                                {"failure", toJson(c.failure)}});
  j["samples"] = nlohmann::json::array();
  for (const RunReport::Sample& s : r.samples)
    j["samples"].push_back({jnum(s.x), jnum(s.f32), jnum(s.f64), jnum(s.exact)});
  j["lines"] = nlohmann::json::array();
  for (const counters::LineCounters& l : r.lines) {
    nlohmann::json line = {l.line, l.instructionsOnLine};
    for (std::uint64_t v : l.values)
      line.push_back(v);
    j["lines"].push_back(line);
  }
  j["instructions"] = nlohmann::json::array();
  for (const counters::SassRecord& rec : r.instructions) {
    nlohmann::json ins = {rec.function, rec.pcOffset};
    for (std::uint64_t v : rec.values)
      ins.push_back(v);
    j["instructions"].push_back(ins);
  }
  j["lines_problem"] = r.linesProblem;
  j["stall_reasons"] = r.stallReasons;
  j["stalls"] = nlohmann::json::array();
  for (const counters::StallRecord& rec : r.stalls) {
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& [reason, n] : rec.samples)
      samples.push_back({reason, n});
    j["stalls"].push_back({rec.function, rec.pcOffset, samples, rec.line});
  }
  j["stall_samples"] = {r.stallSamples, r.stallSamplesDropped};
  j["stalls_problem"] = r.stallsProblem;
  return j;
}

Result<RunReport> runReportFromJson(const nlohmann::json& j) {
  try {
    RunReport r;
    r.ok = j.at("ok").get<bool>();
    r.summary = j.at("summary").get<std::string>();
    r.sum = optionalFrom(j.at("sum"));
    r.exactSum = optionalFrom(j.at("exact_sum"));
    r.checked = j.at("checked").get<long long>();
    r.wrong = j.at("wrong").get<long long>();
    r.unwritten = j.at("unwritten").get<long long>();
    r.pastEnd = j.at("past_end").get<long long>();
    r.beforeStart = j.at("before_start").get<long long>();
    r.maxAbsError = jget(j.at("max_abs_error"));
    r.cellsWide = j.at("cells_wide").get<int>();
    r.cellSpan = j.at("cell_span").get<long long>();
    r.guardSpan = j.at("guard_span").get<long long>();
    r.kernelMs = j.at("kernel_ms").get<std::vector<double>>();
    r.medianMs = j.at("median_ms").get<double>();
    r.bytes = j.at("bytes").get<double>();
    r.flops = j.at("flops").get<double>();
    r.counts = j.at("counts").get<std::vector<long long>>();
    r.binsGot = j.at("bins_got").get<std::vector<long long>>();
    r.binsExpected = j.at("bins_expected").get<std::vector<long long>>();
    r.loadMs = j.at("load_ms").get<double>();
    r.device = j.at("device").get<std::string>();
    r.resources.registers = j.at("registers").get<int>();
    r.resources.staticShared = j.at("static_shared").get<long long>();
    r.resources.localBytes = j.at("local_bytes").get<long long>();
    r.resources.constBytes = j.at("const_bytes").get<long long>();
    r.resources.maxThreadsPerBlock = j.at("max_threads").get<int>();
    r.resources.blocksPerSM = j.at("blocks_per_sm").get<int>();
    for (const auto& m : j.at("first"))
      r.first.push_back(
          {m.at(0).get<long long>(), jget(m.at(1)), jget(m.at(2)), m.at(3).get<bool>()});
    for (const auto& c : j.at("comparisons")) {
      Comparison cmp{c.at("label").get<std::string>(), jget(c.at("ms")), c.at("ok").get<bool>(),
                     c.at("how").get<std::string>()};
      cmp.outputs = outputsFrom(c.at("outputs").get<std::string>());
      cmp.differing = c.at("differing").get<long long>();
      cmp.failure = phraseFromJson(c.at("failure"));
      r.comparisons.push_back(std::move(cmp));
    }
    for (const auto& s : j.at("samples"))
      r.samples.push_back({jget(s.at(0)), jget(s.at(1)), jget(s.at(2)), jget(s.at(3))});
    for (const auto& l : j.value("lines", nlohmann::json::array())) {
      counters::LineCounters line;
      line.line = l.at(0).get<int>();
      line.instructionsOnLine = l.at(1).get<int>();
      for (int m = 0; m < int(counters::SassMetric::Count); ++m)
        line.values[m] = l.at(size_t(2 + m)).get<std::uint64_t>();
      r.lines.push_back(line);
    }
    for (const auto& i : j.value("instructions", nlohmann::json::array())) {
      counters::SassRecord rec;
      rec.function = i.at(0).get<std::string>();
      rec.pcOffset = i.at(1).get<std::uint64_t>();
      for (int m = 0; m < int(counters::SassMetric::Count); ++m)
        rec.values[m] = i.at(size_t(2 + m)).get<std::uint64_t>();
      r.instructions.push_back(std::move(rec));
    }
    r.linesProblem = j.value("lines_problem", "");
    r.stallReasons = j.value("stall_reasons", std::vector<std::string>{});
    for (const auto& s : j.value("stalls", nlohmann::json::array())) {
      counters::StallRecord rec;
      rec.function = s.at(0).get<std::string>();
      rec.pcOffset = s.at(1).get<std::uint64_t>();
      rec.line = s.at(3).get<int>();
      for (const auto& x : s.at(2)) {
        const int reason = x.at(0).get<int>();
        if (reason < 0 || reason >= static_cast<int>(r.stallReasons.size()))
          return Status::error("bad report from the worker: a stall reason out of range");
        rec.samples.push_back({reason, x.at(1).get<std::uint32_t>()});
      }
      r.stalls.push_back(std::move(rec));
    }
    if (const auto it = j.find("stall_samples"); it != j.end() && it->size() == 2) {
      r.stallSamples = it->at(0).get<std::uint64_t>();
      r.stallSamplesDropped = it->at(1).get<std::uint64_t>();
    }
    r.stallsProblem = j.value("stalls_problem", "");
    return r;
  } catch (const std::exception& e) {
    return Status::error(std::string("bad report from the worker: ") + e.what());
  }
}

}  // namespace cudalab::playground
