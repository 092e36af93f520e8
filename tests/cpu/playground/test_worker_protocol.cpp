// The worker protocol against fakes: messages round-trip, bad bytes are refused, and a worker
// that dies, hangs or talks nonsense becomes a sentence, never a hang or a crash of the app.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "playground/worker.hpp"
#include "tests/worker_binary.hpp"

using namespace cudalab;
using namespace cudalab::playground;

namespace {

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    r = fds[0];
    w = fds[1];
  }
  ~Pipe() {
    if (r >= 0) ::close(r);
    if (w >= 0) ::close(w);
  }
};

}  // namespace

TEST(PlaygroundProtocol, MessagesRoundTrip) {
  Pipe p;
  Message m{{{"type", "run"}, {"n", 42}}, {std::string("\0\1binary", 8), ""}};
  ASSERT_TRUE(writeMessage(p.w, m));
  Result<Message> back = readMessage(p.r, steadySeconds() + 5);
  ASSERT_TRUE(back) << back.status().sentence();
  EXPECT_EQ(back->head, m.head);
  EXPECT_EQ(back->blobs, m.blobs);
}

TEST(PlaygroundProtocol, BadBytesAndTimeouts) {
  {
    Pipe p;
    const char junk[] = "hello, this is not a message";
    ASSERT_EQ(::write(p.w, junk, sizeof junk), static_cast<ssize_t>(sizeof junk));
    Result<Message> m = readMessage(p.r, steadySeconds() + 5);
    ASSERT_FALSE(m);
    EXPECT_NE(m.status().message().find("bad message"), std::string::npos);
  }
  {
    Pipe p;
    // The right magic, a head that is not JSON.
    std::string frame = "CLW1";
    const std::uint32_t len = 5, blobs = 0;
    frame.append(reinterpret_cast<const char*>(&len), 4);
    frame.append(reinterpret_cast<const char*>(&blobs), 4);
    frame += "{oops";
    ASSERT_EQ(::write(p.w, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
    Result<Message> m = readMessage(p.r, steadySeconds() + 5);
    ASSERT_FALSE(m);
    EXPECT_NE(m.status().message().find("not a JSON object"), std::string::npos);
  }
  {
    Pipe p;
    const double t0 = steadySeconds();
    Result<Message> m = readMessage(p.r, t0 + 0.2);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.status().message(), "timeout");
    ::close(p.w);
    p.w = -1;
    m = readMessage(p.r, steadySeconds() + 1);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.status().message(), "eof");
  }
}

TEST(PlaygroundProtocol, ReportsRoundTripWithNaN) {
  RunReport r;
  r.ok = false;
  r.summary = "Not correct";
  r.checked = 10;
  r.wrong = 2;
  r.first = {{3, 2.0, std::nan(""), true}, {7, 1.0, 1.5, false}};
  r.kernelMs = {0.5, 0.25};
  r.medianMs = 0.375;
  r.sum = 1'000'000'000'003LL;
  r.exactSum = -5;
  Comparison same{"CUB", 0.1, true, "how"};
  same.outputs = Comparison::Outputs::Differ;
  same.differing = 12'345;
  Comparison failed{"built-in", 0, false};
  failed.failure = Phrase::of(Status::errorf("%s bins do not fit", {"70,000"}));
  r.comparisons = {same, failed};
  r.samples = {{1e-8, 0, 5e-17, 5e-17}};
  r.counts = {4096, 17};
  counters::LineCounters line;
  line.line = 7;
  line.instructionsOnLine = 3;
  line.values[int(counters::SassMetric::GlobalSectors)] = 1ull << 40;
  r.lines = {line};
  r.linesProblem = "";
  counters::SassRecord rec;
  rec.function = "_Z1kPfi";
  rec.pcOffset = 0x1f0;
  rec.values[int(counters::SassMetric::Instructions)] = 1ull << 33;
  r.instructions = {rec};
  r.stallReasons = {"long_scoreboard", "barrier", "selected"};
  r.stalls = {{"_Z1kPfi", 0x1f0, 7, {{0, 4'000'000'000u}, {2, 3}}},
              {"_Z1kPfi", 0x200, 0, {{1, 12}}}};
  r.stallSamples = 1ull << 35;
  r.stallSamplesDropped = 9;
  Result<RunReport> back = runReportFromJson(toJson(r));
  ASSERT_TRUE(back) << back.status().sentence();
  EXPECT_EQ(back->wrong, 2);
  ASSERT_EQ(back->first.size(), 2u);
  EXPECT_TRUE(std::isnan(back->first[0].got));
  EXPECT_TRUE(back->first[0].unwritten);
  EXPECT_EQ(back->first[1].got, 1.5);
  EXPECT_EQ(back->counts, r.counts);
  // The numbers the app writes its sentences from arrive as numbers.
  EXPECT_EQ(back->sum, r.sum);
  EXPECT_EQ(back->exactSum, r.exactSum);
  ASSERT_EQ(back->comparisons.size(), 2u);
  EXPECT_EQ(back->comparisons[0].label, "CUB");
  EXPECT_EQ(back->comparisons[0].how, "how");
  EXPECT_EQ(back->comparisons[0].outputs, Comparison::Outputs::Differ);
  EXPECT_EQ(back->comparisons[0].differing, 12'345);
  EXPECT_TRUE(back->comparisons[0].failure.empty());
  EXPECT_FALSE(back->comparisons[1].ok);
  EXPECT_EQ(back->comparisons[1].outputs, Comparison::Outputs::NotCompared);
  EXPECT_EQ(back->comparisons[1].failure, r.comparisons[1].failure);
  EXPECT_EQ(back->comparisons[1].failure.format, "%s bins do not fit");
  // A report without sums (every exercise but the reduction) keeps them unset.
  RunReport plain;
  Result<RunReport> plainBack = runReportFromJson(nlohmann::json::parse(toJson(plain).dump()));
  ASSERT_TRUE(plainBack) << plainBack.status().sentence();
  EXPECT_FALSE(plainBack->sum);
  EXPECT_FALSE(plainBack->exactSum);
  nlohmann::json odd = toJson(r);
  odd["comparisons"][0]["outputs"] = "maybe";
  EXPECT_FALSE(runReportFromJson(odd)) << "an unknown comparison outcome";
  ASSERT_EQ(back->lines.size(), 1u);
  EXPECT_EQ(back->lines[0].line, 7);
  EXPECT_EQ(back->lines[0].instructionsOnLine, 3);
  EXPECT_EQ(back->lines[0].value(counters::SassMetric::GlobalSectors), 1ull << 40);
  ASSERT_EQ(back->instructions.size(), 1u);
  EXPECT_EQ(back->instructions[0].function, "_Z1kPfi");
  EXPECT_EQ(back->instructions[0].pcOffset, 0x1f0u);
  EXPECT_EQ(back->instructions[0].values[int(counters::SassMetric::Instructions)], 1ull << 33);
  EXPECT_EQ(back->stallReasons, r.stallReasons);
  ASSERT_EQ(back->stalls.size(), 2u);
  EXPECT_EQ(back->stalls[0].function, "_Z1kPfi");
  EXPECT_EQ(back->stalls[0].pcOffset, 0x1f0u);
  EXPECT_EQ(back->stalls[0].line, 7);
  EXPECT_EQ(back->stalls[0].samples, r.stalls[0].samples);
  EXPECT_EQ(back->stalls[1].line, 0);
  EXPECT_EQ(back->stalls[1].total(), 12u);
  EXPECT_EQ(back->stallSamples, 1ull << 35);
  EXPECT_EQ(back->stallSamplesDropped, 9u);
  nlohmann::json badReason = toJson(r);
  badReason["stalls"][1][2][0][0] = 3;
  EXPECT_FALSE(runReportFromJson(badReason)) << "a stall reason past the names";
  EXPECT_FALSE(runReportFromJson(nlohmann::json{{"ok", true}}));
  RunParams p;
  p.n = 77;
  p.launch = {{3, 2, 1}, {32, 4, 1}};
  p.lineCounters = true;
  Result<RunParams> pb = runParamsFromJson(toJson(p));
  ASSERT_TRUE(pb);
  EXPECT_TRUE(pb->lineCounters);
  EXPECT_FALSE(pb->stalls);
  EXPECT_EQ(pb->lineKernel, 0);
  p.lineKernel = 1;
  EXPECT_EQ(runParamsFromJson(toJson(p))->lineKernel, 1);
  p.stalls = true;
  EXPECT_TRUE(runParamsFromJson(toJson(p))->stalls);
  EXPECT_EQ(pb->n, 77);
  EXPECT_EQ(pb->launch, p.launch);
  EXPECT_FALSE(runParamsFromJson(nlohmann::json{{"n", "x"}}));
}

// A comparison's note in English (the benchmark's JSON, logs) is made from the same fields the app
// translates: how it was measured, then how its output compares, or why it could not run.
TEST(PlaygroundProtocol, AComparisonsNoteInEnglish) {
  Comparison c{"CUB", 0.1, true, "256 threads per block, grid from N"};
  EXPECT_EQ(c.note(), "256 threads per block, grid from N");
  c.outputs = Comparison::Outputs::Identical;
  EXPECT_EQ(c.note(),
            "256 threads per block, grid from N; outputs identical to yours, bit for bit");
  c.how.clear();
  c.outputs = Comparison::Outputs::Differ;
  c.differing = 1'234'567;
  EXPECT_EQ(c.note(), "1,234,567 elements differ from yours");
  c.outputs = Comparison::Outputs::Unreadable;
  EXPECT_EQ(c.note(), "could not be read back");
  Comparison failed{"CUB", 0, false};
  failed.failure = Phrase::of(Status::error("Out of memory."));
  EXPECT_EQ(failed.note(), "could not run: Out of memory.");
}

// Fake workers: shell commands that misbehave in each way a learner's kernel can make the real
// one misbehave.
TEST(PlaygroundWorker, DyingWorkerIsASentence) {
  WorkerClient w({"/bin/sh", "-c", "echo about to die; exit 3"});
  Result<WorkerHello> h = w.hello();
  ASSERT_FALSE(h);
  EXPECT_NE(h.status().message().find("exited with code 3"), std::string::npos)
      << h.status().message();
  EXPECT_FALSE(w.running());
  EXPECT_NE(w.output().find("about to die"), std::string::npos);
  // The next call starts a fresh one.
  EXPECT_FALSE(w.hello());
  EXPECT_EQ(w.restarts(), 1);
}

TEST(PlaygroundWorker, CrashingWorkerNamesTheSignal) {
  WorkerClient w({"/bin/sh", "-c", "kill -SEGV $$"});
  Result<WorkerHello> h = w.hello();
  ASSERT_FALSE(h);
  EXPECT_NE(h.status().message().find("signal 11"), std::string::npos) << h.status().message();
}

TEST(PlaygroundWorker, HangingWorkerIsStoppedAtTheLimit) {
  WorkerClient w({"/bin/sh", "-c", "exec sleep 60"});
  const double t0 = steadySeconds();
  Result<Message> m = w.call({{{"type", "hello"}}, {}}, 0.5, 30, nullptr);
  const double took = steadySeconds() - t0;
  ASSERT_FALSE(m);
  EXPECT_NE(m.status().message().find("did not get ready within 0.5 s"), std::string::npos)
      << m.status().message();
  EXPECT_LT(took, 10.0);
  EXPECT_FALSE(w.running());
}

// The learner's time limit starts when the worker says its launches begin, and the message says
// it was the kernel.
TEST(PlaygroundWorker, KernelPhaseHasTheLearnersLimit) {
  WorkerClient w({"/bin/sh", "-c",
                  "printf 'CLW1\\044\\000\\000\\000\\000\\000\\000\\000"
                  "{\"type\":\"phase\",\"phase\":\"launching\"}' >&4; exec sleep 60"});
  const double t0 = steadySeconds();
  Result<Message> m = w.call({{{"type", "run"}}, {}}, 30, 0.3, nullptr);
  ASSERT_FALSE(m);
  EXPECT_NE(m.status().message().find("Your kernel ran past the time limit of 0.3 s"),
            std::string::npos)
      << m.status().message();
  EXPECT_LT(steadySeconds() - t0, 10.0);
}

// A worker that prints megabytes before it answers is drained, not deadlocked.
TEST(PlaygroundWorker, ChattyWorkerIsDrained) {
  WorkerClient w({"/bin/sh", "-c",
                  "head -c 3000000 /dev/zero | tr '\\0' x; "
                  "printf 'CLW1\\020\\000\\000\\000\\000\\000\\000\\000"
                  "{\"type\":\"hello\"}' >&4; exec sleep 60"});
  Result<Message> m = w.call({{{"type", "hello"}}, {}}, 20, 20, nullptr);
  ASSERT_TRUE(m) << m.status().sentence();
  EXPECT_EQ(m->head.value("type", ""), "hello");
  EXPECT_EQ(w.output().size(), 16u * 1024);  // kept: the first 16 KiB
}

TEST(PlaygroundWorker, CancelStopsTheWorker) {
  WorkerClient w({"/bin/sh", "-c", "exec sleep 60"});
  std::atomic<bool> cancel{true};
  Result<Message> m = w.call({{{"type", "hello"}}, {}}, 30, 30, &cancel);
  ASSERT_FALSE(m);
  EXPECT_NE(m.status().message().find("Cancelled"), std::string::npos);
  EXPECT_FALSE(w.running());
}

TEST(PlaygroundWorker, NonsenseIsRefused) {
  WorkerClient w({"/bin/sh", "-c", "echo 'garbage garbage garbage' >&4; exec sleep 60"});
  Result<Message> m = w.call({{{"type", "hello"}}, {}}, 5, 5, nullptr);
  ASSERT_FALSE(m);
  EXPECT_NE(m.status().message().find("cannot read"), std::string::npos) << m.status().message();
  EXPECT_FALSE(w.running());
}

TEST(PlaygroundWorker, MissingProgramIsASentence) {
  WorkerClient w({"/nonexistent/cudalab-worker"});
  Result<WorkerHello> h = w.hello();
  ASSERT_FALSE(h);
  EXPECT_FALSE(h.status().message().empty());
}

// The real worker (`cudalab worker`) answers hello with or without a GPU, refuses nonsense
// requests with a sentence and keeps going.
TEST(PlaygroundWorker, RealWorkerAnswers) {
  WorkerClient w({cudalabBinary(), "worker"});
  Result<WorkerHello> h = w.hello();
  ASSERT_TRUE(h) << h.status().sentence();
  if (!h->hasDevice) {
    EXPECT_FALSE(h->problem.empty());
  }
  Result<Message> m = w.call({{{"type", "dance"}}, {}}, 10, 10, nullptr);
  ASSERT_TRUE(m) << m.status().sentence();
  EXPECT_EQ(m->head.value("type", ""), "error");
  m = w.call({{{"type", "run"}, {"params", {{"exercise", "double"}}}}, {}}, 10, 10, nullptr);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->head.value("type", ""), "error");
  EXPECT_NE(m->head.value("message", "").find("bad run request"), std::string::npos);
  EXPECT_TRUE(w.running());
  EXPECT_EQ(w.restarts(), 0);
}

TEST(PlaygroundWorker, SanitizerReportsAreRead) {
  const std::string out =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at double_it+0x90 in kernel.cu:7\n"
      "=========     by thread (5,0,0) in block (3,0,0)\n"
      "=========     Address 0x7f0000000000 is out of bounds\n";
  const std::optional<SanitizerFinding> f = firstSanitizerFinding(out);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->what, "Invalid __global__ write of size 4 bytes");
  EXPECT_EQ(f->line, 7);
  EXPECT_EQ(f->where, "thread (5,0,0) in block (3,0,0)");
  EXPECT_FALSE(firstSanitizerFinding("hello from thread 1\n"));
  const std::vector<std::string> plain = workerCommand(false);
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(plain[1], "worker");
  const std::vector<std::string> checked = workerCommand(true);
  EXPECT_EQ(checked.back(), "worker");
  EXPECT_NE(std::find(checked.begin(), checked.end(), "memcheck"), checked.end());
}

// A worker started from a thread that ends must live on: the app starts workers from its jobs,
// which are threads.
TEST(PlaygroundWorker, OutlivesTheThreadThatStartedIt) {
  WorkerClient w({cudalabBinary(), "worker"});
  std::thread([&] { ASSERT_TRUE(w.hello()); }).join();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Result<Message> m = w.call({{{"type", "dance"}}, {}}, 10, 10, nullptr);
  ASSERT_TRUE(m) << m.status().sentence();
  EXPECT_EQ(w.restarts(), 0);
}
