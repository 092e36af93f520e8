// [SECTION] index
//   helpers: tables, device and date
//   bench device: copy bandwidths
//   bench launch-config: the lesson's sweeps, interop against host copy, UI frame times
//   bench transfers: phases per mode, streams against sequential copies, pinned bandwidth,
//                    crossover sweep
//   bench precision: FMA throughput against the peaks, summation errors
//   bench memory: transpose ladder against the copy ceiling, strided copy against the model
//   bench memory-model: every modelled kernel once, for Nsight Compute
#include "bench.hpp"

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
#include "common/pattern.hpp"
#include "common/runtime_info.hpp"
#include "device/device_bandwidth.hpp"
#include "launch_config/launch_config.hpp"
#include "matmul/matmul.hpp"
#include "memory/memory.hpp"
#include "precision/summation.hpp"
#include "precision/throughput.hpp"
#include "reduction/reduction.hpp"
#include "transfers/transfers.hpp"
#include "lessons/registry.hpp"
#include "platform/gl.hpp"
#include "platform/headless_egl.hpp"
#include "platform/interop.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

namespace cudalab {
namespace {

// [SECTION] helpers: tables, device and date

std::string today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char b[16];
  std::strftime(b, sizeof b, "%Y-%m-%d", &tm);
  return b;
}

// The runner's statistics (summarize), for times measured on the host clock.
double median(std::vector<double> v) {
  PhaseStats stats;
  stats.samplesMs = std::move(v);
  summarize(stats);
  return stats.medianMs;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1,
                    static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

int noGpu(const RuntimeInfo& rt) {
  std::fprintf(stderr, "cudalab: benchmarks need a GPU. %s\n", rt.summary().c_str());
  return 1;
}

int fail(const Status& s) {
  std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
  return 1;
}

Status writeOutputs(const std::string& outDir, const std::string& id, const std::string& md,
                    const nlohmann::json& j) {
  const std::string base = outDir + "/bench-" + id;
  std::ofstream(base + ".md") << md;
  std::ofstream out(base + ".json");
  out << j.dump(2) << "\n";
  if (!out) return Status::error("Could not write " + base + ".json.");
  std::printf("%s\n(written to %s.md and %s.json)\n", md.c_str(), base.c_str(), base.c_str());
  return {};
}

// printf into a string, for any argument types.
template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

// [SECTION] bench device: copy bandwidths

int benchDevice(const std::string& outDir) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  Result<BandwidthReport> rep = measureBandwidth(0, BandwidthParams{}, nullptr, nullptr);
  if (!rep) return fail(rep.status());
  std::string md = "### Copy bandwidth, " + today() + ", " + rt.firstDeviceName + "\n\n" +
                   "| copy | bytes | median GB/s | median ms | min ms | max ms |\n"
                   "| --- | ---: | ---: | ---: | ---: | ---: |\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  for (const CopyResult& r : rep->results) {
    const CopyVariant& v = copyVariant(r.kind);
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %zu | %.1f | %.3f | %.3f | %.3f |\n", v.label, r.bytes,
                  r.gbpsMedian, r.msMedian, r.msMin, r.msMax);
    md += line;
    j["copies"][v.id] = {{"gbps_median", r.gbpsMedian}, {"ms_median", r.msMedian}};
  }
  return writeOutputs(outDir, "device", md, j) ? 0 : 1;
}

// [SECTION] bench launch-config: the lesson's sweeps, interop against host copy, UI frame times

struct SweepRow {
  LaunchConfig c;
  Measurement m;
};

Result<std::vector<SweepRow>> runSweep(const std::vector<LaunchConfig>& configs,
                                       const DeviceLimits& lim) {
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  std::vector<SweepRow> rows;
  for (const LaunchConfig& c : configs) {
    Result<LaunchShape> s = shapeFor(c, lim);
    if (!s) return s.status();
    std::unique_ptr<Workload> w = makeDoublingWorkload(c, *s);
    MeasureOptions opt;
    opt.runs = 20;
    opt.verifyEveryRun = false;
    Result<Measurement> m = measure(*w, opt, nullptr, stream.get());
    if (!m) return m.status();
    rows.push_back({c, *m});
  }
  return rows;
}

std::string sweepTable(const char* xName, const std::vector<SweepRow>& rows, bool blocks,
                       const DeviceLimits& lim) {
  std::string md = std::string("| ") + xName +
                   " | kernel median ms | min ms | max ms | GB/s | copies + kernel ms | correct |\n"
                   "| ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const SweepRow& r : rows) {
    char line[256];
    const long long x = blocks ? r.c.blocks : r.c.threadsPerBlock;
    const bool heuristic = blocks && (x == kHeuristicBlocksPerSMLow * lim.smCount ||
                                      x == kHeuristicBlocksPerSMHigh * lim.smCount);
    std::snprintf(line, sizeof line, "| %lld%s | %.4f | %.4f | %.4f | %.0f | %.3f | %s |\n", x,
                  heuristic ? " (heuristic)" : "", r.m.kernel().medianMs, r.m.kernel().minMs,
                  r.m.kernel().maxMs, r.m.kernelGBps(), r.m.totalMedianMs(),
                  r.m.check.ok() ? "yes" : "NO");
    md += line;
  }
  return md;
}

nlohmann::json sweepJson(const std::vector<SweepRow>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const SweepRow& r : rows)
    a.push_back({{"threads_per_block", r.c.threadsPerBlock},
                 {"blocks", r.c.blocks},
                 {"kernel_median_ms", r.m.kernel().medianMs},
                 {"kernel_min_ms", r.m.kernel().minMs},
                 {"kernel_max_ms", r.m.kernel().maxMs},
                 {"gbps", r.m.kernelGBps()},
                 {"correct", r.m.check.ok()}});
  return a;
}

// The per-frame cost of bringing a kernel-made 1920x1080 RGBA frame to a texture, each way.
Status interopVsHostCopy(double& interopMs, double& hostMs, int frames) {
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  InteropImage img;
  CUDALAB_TRY(img.create(1920, 1080, PixelFormat::RGBA8));
  if (!img.interopAvailable()) return Status::error(img.interopProblem());
  for (InteropPath path : {InteropPath::Interop, InteropPath::HostCopy}) {
    img.setPath(path);
    std::vector<double> costs;
    for (int f = 0; f < frames + 10; ++f) {
      {
        auto m = img.map(stream.get());
        if (!m) return m.status();
        CUDALAB_TRY(drawTestPattern(m->as<std::uint32_t>(), 1920, 1080, f, stream.get()));
      }
      CUDALAB_TRY(img.upload(stream.get()));
      if (f >= 10) costs.push_back(img.frameCostMs());  // after warm-up
    }
    (path == InteropPath::Interop ? interopMs : hostMs) = median(costs);
  }
  return {};
}

// Frame times of the real UI (headless, 1600x900) while the lesson's threads-per-block sweep runs
// on its worker thread.
Status uiFrameTimesDuringSweep(std::vector<double>& frameMs, int& points) {
  Settings settings;
  settings.lesson = "launch-config";
  Shell shell(settings, queryRuntime(), "bench", /*headless=*/true);
  UiRenderer renderer(shell, settings);
  CUDALAB_TRY(renderer.init(nullptr));
  Framebuffer fb;
  CUDALAB_TRY(fb.resize(1600, 900));
  fb.bind();
  auto frame = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    renderer.frame(1600, 900, 1.0f, true, false, 1.0f / 60.0f);
    glFinish();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  // Let the lesson settle (device limits, first picture) before the sweep starts.
  for (int i = 0; i < 600 && (i < 5 || shell.busy()); ++i) {
    frame();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!shell.current().startAction("sweep-threads"))
    return Status::error("The lesson did not start its sweep.");
  const auto start = std::chrono::steady_clock::now();
  while (shell.busy()) {
    frameMs.push_back(frame());
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(120))
      return Status::error("The sweep did not finish within 2 minutes.");
  }
  points = static_cast<int>(frameMs.size());
  Framebuffer::unbind();
  return {};
}

int benchLaunchConfig(const std::string& outDir) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  Result<DeviceLimits> lim = queryLimits(0);
  if (!lim) return fail(lim.status());
  LaunchConfig base;  // the course's 30 million doubles, 1D guarded
  Result<std::vector<SweepRow>> tpb = runSweep(threadsPerBlockSweep(base), *lim);
  if (!tpb) return fail(tpb.status());
  Result<std::vector<SweepRow>> blocks = runSweep(blocksSweep(base, *lim), *lim);
  if (!blocks) return fail(blocks.status());

  HeadlessContext gl;
  if (Status s = gl.create(0); !s) return fail(s);
  double interopMs = 0, hostMs = 0;
  if (Status s = interopVsHostCopy(interopMs, hostMs, 200); !s) return fail(s);
  std::vector<double> frameMs;
  int frames = 0;
  if (Status s = uiFrameTimesDuringSweep(frameMs, frames); !s) return fail(s);

  char head[512];
  std::snprintf(head, sizeof head,
                "### launch-config, %s, %s (%d SMs), N = %lld floats\n\n"
                "Kernel time: median of 20 runs after 2 warm-ups, CUDA events; GB/s counts 4 bytes "
                "read and 4 written per element.\n\n",
                today().c_str(), lim->name.c_str(), lim->smCount, base.n);
  std::string md = head;
  md += "Threads per block (blocks automatic, guarded):\n\n" +
        sweepTable("threads per block", *tpb, false, *lim);
  md += "\nBlocks per grid with a grid-stride loop (128 threads per block):\n\n" +
        sweepTable("blocks", *blocks, true, *lim);
  char tail[768];
  std::snprintf(
      tail, sizeof tail,
      "\nDisplay path for a kernel-made 1920x1080 RGBA frame (median of 200 frames, map + "
      "kernel + texture upload, host clock):\n\n"
      "| path | ms per frame |\n| --- | ---: |\n"
      "| CUDA-OpenGL interop | %.3f |\n| copy through host memory | %.3f |\n"
      "| ratio (target at least 4x) | %.1fx |\n\n"
      "UI frame time while the threads-per-block sweep runs (headless, 1600x900, %d "
      "frames): median %.2f ms, 95th percentile %.2f ms, max %.2f ms (target: median "
      "under 16.7 ms).\n",
      interopMs, hostMs, hostMs / interopMs, frames, median(frameMs), percentile(frameMs, 0.95),
      frameMs.empty() ? 0.0 : *std::max_element(frameMs.begin(), frameMs.end()));
  md += tail;
  nlohmann::json j = {{"date", today()},
                      {"device", lim->name},
                      {"n", base.n},
                      {"threads_per_block_sweep", sweepJson(*tpb)},
                      {"blocks_sweep", sweepJson(*blocks)},
                      {"interop_ms", interopMs},
                      {"host_copy_ms", hostMs},
                      {"interop_speedup", hostMs / interopMs},
                      {"ui_frame_ms_median", median(frameMs)},
                      {"ui_frame_ms_p95", percentile(frameMs, 0.95)},
                      {"ui_frames", frames}};
  return writeOutputs(outDir, "launch-config", md, j) ? 0 : 1;
}

// [SECTION] bench transfers: phases per mode, streams against sequential copies, pinned
// bandwidth, crossover sweep

int benchTransfers(const std::string& outDir) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  std::string md = "### Transfers, " + today() + ", " + rt.firstDeviceName + "\n\n";

  auto step = [](const char* what) {
    std::fprintf(stderr, "bench transfers: %s\n", what);
    std::fflush(stderr);
  };
  // 1. The copy ceilings: the device lesson's measurement and the PCIe link.
  step("copy bandwidths");
  Result<BandwidthReport> bw = measureBandwidth(0, BandwidthParams{}, nullptr, nullptr);
  if (!bw) return fail(bw.status());
  std::optional<PcieLink> link = queryPcieLink(0);
  auto gbps = [&](CopyKind k) {
    for (const CopyResult& r : bw->results)
      if (r.kind == k) return r.gbpsMedian;
    return 0.0;
  };
  const double bestH2d = gbps(CopyKind::HostToDevicePinned);

  // 2. The phase table per mode at N = 2^26, doubling, one call and ten calls.
  step("phases per mode");
  TransferParams p;
  p.n = 1LL << 26;
  p.op = TransferOp::Double;
  md +=
      "Phases per mode, doubling N = 2^26 float32 (256 MiB per array), median of 5 runs after "
      "1 warm-up, CUDA events around every copy and kernel; every run's output checked against "
      "the float64 reference.\n\n"
      "| mode | host to device ms | kernel ms | device to host ms | wall ms (1 call) | "
      "H2D GB/s | wall ms (10 calls) | correct |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  double pinnedH2dGBps = 0;
  {
    auto session = TransferSession::create(p, 1u);
    if (!session) return fail(session.status());
    for (const TransferModeInfo& m : transferModes()) {
      TransferParams one = p, ten = p;
      one.calls = 1;
      ten.calls = 10;
      Result<PlanRun> r1 = (*session)->run(planMode(one, m.mode), RunOptions{1, 5, false}, nullptr);
      if (!r1) return fail(r1.status());
      Result<PlanRun> r10 =
          (*session)->run(planMode(ten, m.mode), RunOptions{1, 3, false}, nullptr);
      if (!r10) return fail(r10.status());
      const double h2d = r1->phases[0].medianMs;
      const double h2dGBps = 4.0 * double(p.n) / (h2d * 1e6);
      if (m.mode == TransferMode::ExplicitPinned) pinnedH2dGBps = h2dGBps;
      md += std::string("| ") + m.label +
            fmt(" | %.3f | %.3f | %.3f | %.3f | %.1f | %.3f |", h2d, r1->phases[1].medianMs,
                r1->phases[2].medianMs, r1->wall.medianMs, h2dGBps, r10->wall.medianMs) +
            (r1->check.ok() && r10->check.ok() ? " yes |\n" : " **NO** |\n");
      j["modes"][m.id] = {{"h2d_ms", h2d},
                          {"kernel_ms", r1->phases[1].medianMs},
                          {"d2h_ms", r1->phases[2].medianMs},
                          {"wall_ms", r1->wall.medianMs},
                          {"wall_ms_10_calls", r10->wall.medianMs},
                          {"correct", r1->check.ok() && r10->check.ok()}};
    }
  }

  step("streams against sequential");
  // 3. Streams against sequential explicit copies for a kernel as long as its copy in: the
  // iterate kernel's work calibrated on this GPU.
  TransferParams it = p;
  it.op = TransferOp::Iterate;
  it.calls = 1;
  it.work = 1024;
  auto session = TransferSession::create(it, 2u);
  if (!session) return fail(session.status());
  Result<PlanRun> probe =
      (*session)->run(planMode(it, TransferMode::ExplicitPinned), RunOptions{1, 3, false}, nullptr);
  if (!probe) return fail(probe.status());
  const double ratioWork = probe->phases[0].medianMs / probe->phases[1].medianMs;
  it.work =
      std::clamp(static_cast<int>(it.work * ratioWork), 1, static_cast<int>(kTransferWork.max));
  Result<PlanRun> seq =
      (*session)->run(planMode(it, TransferMode::ExplicitPinned), RunOptions{1, 5, false}, nullptr);
  if (!seq) return fail(seq.status());
  md += fmt("\nStreams against sequential copies: iterate kernel, N = 2^26, W = %d multiply-adds "
            "per element (calibrated so the kernel takes about as long as the copy in: %.3f ms "
            "kernel, %.3f ms in), pinned memory, one call, median of 5 runs.\n\n",
            it.work, seq->phases[1].medianMs, seq->phases[0].medianMs) +
        "| schedule | wall ms | copy/kernel overlap ms | speed-up over sequential |\n"
        "| --- | ---: | ---: | ---: |\n" +
        fmt("| sequential: in, kernel, out | %.3f | %.3f | 1.00x |\n", seq->wall.medianMs,
            seq->timeline.overlapMs());
  j["streams"]["work"] = it.work;
  j["streams"]["sequential_ms"] = seq->wall.medianMs;
  bool allCorrect = seq->check.ok();
  for (auto [streams, chunks] : {std::pair{2, 1}, {4, 1}, {4, 2}, {8, 1}, {8, 2}}) {
    it.streams = streams;
    it.chunksPerStream = chunks;
    Result<PlanRun> r =
        (*session)->run(planMode(it, TransferMode::Streams), RunOptions{1, 5, false}, nullptr);
    if (!r) return fail(r.status());
    allCorrect = allCorrect && r->check.ok();
    const double speedup = seq->wall.medianMs / r->wall.medianMs;
    md += fmt("| %d streams x %d chunks | %.3f | %.3f | **%.2fx** |\n", streams, chunks,
              r->wall.medianMs, r->timeline.overlapMs(), speedup);
    j["streams"]["runs"].push_back({{"streams", streams},
                                    {"chunks_per_stream", chunks},
                                    {"wall_ms", r->wall.medianMs},
                                    {"speedup", speedup}});
    if (streams == 4 && chunks == 1) j["streams"]["speedup_4_streams"] = speedup;
  }
  md +=
      std::string("\nTarget: 4 streams at least 1.5x the sequential schedule. Outputs correct: ") +
      (allCorrect ? "yes" : "**NO**") + ".\n";

  // 4. Pinned host-to-device bandwidth against the best measured and the link.
  md +=
      fmt("\nPinned host-to-device in the lesson (explicit pinned, 256 MiB): %.1f GB/s = %.0f%% of "
          "the best measured pinned copy (%.1f GB/s, device lesson, 256 MiB x 10).",
          pinnedH2dGBps, 100.0 * pinnedH2dGBps / bestH2d, bestH2d);
  if (link)
    md += std::string(" Link: ") + link->describe() +
          fmt(", so the best copy reaches %.0f%% of its ceiling.",
              100.0 * bestH2d / link->gbpsPerDirection());
  else
    md += " The PCIe link's speed is not readable from sysfs here.";
  md +=
      fmt("\nPageable: %.1f GB/s in, %.1f GB/s out; pinned out %.1f GB/s; device copy %.0f GB/s.\n",
          gbps(CopyKind::HostToDevicePageable), gbps(CopyKind::DeviceToHostPageable),
          gbps(CopyKind::DeviceToHostPinned), gbps(CopyKind::DeviceToDevice));
  j["pinned_h2d_gbps"] = pinnedH2dGBps;
  j["best_pinned_h2d_gbps"] = bestH2d;
  j["pinned_fraction_of_best"] = pinnedH2dGBps / bestH2d;
  if (link) j["link"] = {{"describe", link->describe()}, {"gbps", link->gbpsPerDirection()}};

  // 5. Where the GPU pays off: the lesson's sweep, doubling, ten calls.
  step("size sweep");
  TransferParams sw;
  sw.op = TransferOp::Double;
  sw.calls = 10;
  std::vector<double> ns, cpu, cpuOne;
  std::vector<std::vector<double>> modeMs(transferModes().size());
  md +=
      "\nSize sweep, doubling, 10 calls (ms for all ten; CPU: one call's median x 10):\n\n"
      "| N | implicit | explicit | implicit pinned | explicit pinned | streams | CPU 1 thread | "
      "CPU all cores |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (long long n : sweepSizes(1LL << 26)) {
    Result<SizePoint> pt = measureSize(sw, n, true, referenceLink(), nullptr);
    if (!pt) return fail(pt.status());
    ns.push_back(double(n));
    cpu.push_back(pt->cpu.bestMs());
    cpuOne.push_back(pt->cpu.oneThreadMs);
    md += "| " + std::to_string(n);
    for (size_t m = 0; m < modeMs.size(); ++m) {
      modeMs[m].push_back(pt->modeMs[m]);
      md += fmt(" | %.3f", pt->modeMs[m]) + (pt->modeOk[m] ? "" : " (wrong)");
    }
    md += fmt(" | %.3f | %.3f |\n", pt->cpu.oneThreadMs, pt->cpu.allCoresMs);
    j["sweep"].push_back({{"n", n},
                          {"modes_ms", pt->modeMs},
                          {"cpu_1_ms", pt->cpu.oneThreadMs},
                          {"cpu_all_ms", pt->cpu.allCoresMs},
                          {"threads", pt->cpu.threads}});
  }
  md += "\nCrossover (GPU faster than the CPU's best, one thread or all cores, from this N on): ";
  for (size_t m = 0; m < modeMs.size(); ++m) {
    std::optional<double> c = findCrossover(ns, modeMs[m], cpu);
    md += std::string(m ? "; " : "") + transferModes()[m].label + " " +
          (c ? fmt("%.3g", *c) : std::string("never in this range"));
    j["crossover"][transferModes()[m].id] = c ? *c : -1.0;
  }
  md += ".\n";
  return writeOutputs(outDir, "transfers", md, j) ? 0 : 1;
}

// [SECTION] bench precision: FMA throughput against the peaks, summation errors at the course's N

int benchPrecision(const std::string& outDir) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  std::fprintf(stderr, "precision: FMA throughput...\n");
  Result<std::vector<precision::FmaRate>> rates = precision::measureFmaRates(0);
  if (!rates) return fail(rates.status());
  std::string md =
      "### FMA throughput, " + today() + ", " + rt.firstDeviceName + "\n\n" +
      "| type | instruction | measured GFLOP/s | peak GFLOP/s | of peak | median ms |\n"
      "| --- | --- | ---: | ---: | ---: | ---: |\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  double f32 = 0, f64 = 0, half = 0;
  for (const precision::FmaRate& r : *rates) {
    const precision::FmaTypeInfo& t = precision::fmaTypeInfo(r.type);
    md += fmt("| %s | %s | %.0f | ", t.label, t.instruction, r.gflops) +
          (r.peak.known ? fmt("%.0f | %.0f%%", r.peak.value, 100 * r.fractionOfPeak())
                        : std::string("unknown | ")) +
          fmt(" | %.3f |\n", r.medianMs);
    j["fma"][t.id] = {{"gflops", r.gflops},
                      {"peak_gflops", r.peak.known ? r.peak.value : 0.0},
                      {"peak_formula", r.peak.formula},
                      {"median_ms", r.medianMs}};
    if (r.type == precision::FmaType::Float32) f32 = r.gflops;
    if (r.type == precision::FmaType::Float64) f64 = r.gflops;
    if (r.type == precision::FmaType::Half2) half = r.gflops;
  }
  md += fmt("\nfloat64 : float32 = 1 : %.2f; half : float32 = %.2f : 1 (measured in one run).\n",
            f32 / f64, half / f32);
  j["fp64_to_fp32"] = f64 / f32;
  j["half_to_fp32"] = half / f32;

  std::fprintf(stderr, "precision: summing 2^27 - 157 normal numbers...\n");
  const std::vector<float> x = precision::normalFloats(precision::kCourseSumCount, 20261121u);
  Result<precision::SumResults> sums = precision::sumAll(x, true);
  if (!sums) return fail(sums.status());
  md += fmt("\n### Summation of %zu normal float32 numbers, exact sum %.10f\n\n", sums->n,
            static_cast<double>(sums->exact)) +
        "| method | sum | error | bound |\n| --- | ---: | ---: | --- |\n";
  for (const precision::SumMethodInfo& m : precision::sumMethods()) {
    const size_t k = static_cast<size_t>(m.method);
    std::string bound = m.bound;  // "sum|x|": a pipe would split the Markdown cell
    for (size_t at = bound.find('|'); at != std::string::npos; at = bound.find('|', at + 2))
      bound.replace(at, 1, "\\|");
    md += fmt("| %s | %.10g | %.3g | ", m.label, sums->value[k], sums->error[k]) + bound + " |\n";
    j["sums"][m.id] = {{"sum", sums->value[k]}, {"error", sums->error[k]}};
  }
  j["sums"]["tree_on_gpu"] = sums->treeOnGpu;
  return writeOutputs(outDir, "precision", md, j) ? 0 : 1;
}

// [SECTION] bench memory: the transpose ladder against the copy ceiling, strided copy against the
// access model

// The access model's view of a step (memory.hpp: stepModel): load / store sectors per request,
// shared wavefronts per request of the tile read ("-" without a tile).
std::string modelColumns(const mem::TransposeStepInfo& s, int rows, int cols) {
  const mem::StepModel m = mem::stepModel(s, rows, cols);
  return fmt("%.2f | %.2f | ", m.loadSectors, m.storeSectors) +
         (m.sharedLoad < 0 ? std::string("-") : fmt("%.2f", m.sharedLoad));
}

Status transposeTable(int rows, int cols, int runs, std::string& md, nlohmann::json& j,
                      double& bestFraction) {
  mem::TransposeParams p;
  p.rows = rows;
  p.cols = cols;
  p.runs = runs;
  std::fprintf(stderr, "memory: transpose ladder %d x %d...\n", rows, cols);
  Result<mem::TransposeReport> r = mem::measureTranspose(p);
  if (!r) return r.status();
  md += fmt("\n#### Transpose, %d x %d float32 (%d runs each, median)\n\n", rows, cols, runs) +
        "| step | ms | GB/s | of copy ceiling | model: load sectors | store sectors | shared "
        "wavefronts | correct |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  bestFraction = 0;
  nlohmann::json rowsJson = nlohmann::json::array();
  for (const mem::TransposeResult& t : r->steps) {
    const mem::TransposeStepInfo& s = mem::transposeStep(t.step);
    if (!s.ceiling) bestFraction = std::max(bestFraction, t.ofCeiling);
    md += fmt("| %s | %.3f | %.0f | %.1f%% | ", s.label, t.m.kernel().medianMs, t.gbps,
              100 * t.ofCeiling) +
          (s.step == mem::TransposeStep::Memcpy ? std::string("- | - | -")
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

int benchMemory(const std::string& outDir) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  std::string md = "### Memory, " + today() + ", " + rt.firstDeviceName + "\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  double best = 0, bestOdd = 0;
  if (Status s = transposeTable(8192, 8192, 20, md, j, best); !s) return fail(s);
  md +=
      fmt("\nTarget: the best transpose at least 90%% of the copy ceiling (the faster of "
          "cudaMemcpy and the copy kernel): **%.1f%%**.\n",
          100 * best);
  if (Status s = transposeTable(8191, 8193, 10, md, j, bestOdd); !s) return fail(s);

  std::fprintf(stderr, "memory: strided copy...\n");
  mem::StridedParams sp;
  Result<mem::StridedReport> r = mem::measureStridedCopy(sp);
  if (!r) return fail(r.status());
  md += fmt("\n#### Strided copy, %lld floats read and written (%d runs each, median)\n\n",
            sp.count, sp.runs) +
        "| stride | GB/s (useful bytes) | model efficiency | predicted GB/s | measured / "
        "predicted | correct |\n| ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const mem::StridedPoint& pt : r->points) {
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
  return writeOutputs(outDir, "memory", md, j) ? 0 : 1;
}

// [SECTION] bench memory-model: every modelled kernel once, with the model's counts, for Nsight
// Compute (tools/ncu_memory_check.py runs it under ncu and compares)

int benchMemoryModel(const std::string& outDir) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  std::string md = "### Access model, " + today() + ", " + rt.firstDeviceName + "\n\n" +
                   "| case | global load sectors/request | global store sectors/request | shared "
                   "load wavefronts/request | shared store wavefronts/request |\n"
                   "| --- | ---: | ---: | ---: | ---: |\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  for (const mem::ModelCheckCase& c : mem::modelCheckCases()) {
    std::fprintf(stderr, "memory-model: %s\n", c.label.c_str());
    if (Status s = mem::runModelKernel(c); !s) return fail(s);
    const std::vector<mem::InstructionTotals> t = mem::kernelTotals(c.kernel, c.p);
    const mem::KernelInfo& k = mem::kernelInfo(c.kernel);
    // Totals over the kernel's instructions of each kind, as the counters add them up.
    mem::InstructionTotals sum[2][2];  // [space][op]
    for (size_t i = 0; i < t.size(); ++i) {
      mem::InstructionTotals& s = sum[int(k.instructions[i].space)][int(k.instructions[i].op)];
      s.requests += t[i].requests;
      s.sectors += t[i].sectors;
      s.wavefronts += t[i].wavefronts;
    }
    auto cell = [](const mem::InstructionTotals& s, bool shared) {
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
  return writeOutputs(outDir, "memory-model", md, j) ? 0 : 1;
}

// [SECTION] bench matmul: the ladder at 4096^3 against cuBLAS and the FP32 peak, an odd size, the
// course's comparison and GFLOP/s against size

Status matmulTable(int M, int N, int K, const matmul::Ceilings& ceil, std::string& md,
                   nlohmann::json& j, double& bestOfCublas, double& tile16) {
  using namespace matmul;
  std::fprintf(stderr, "matmul: ladder %d x %d x %d...\n", M, N, K);
  Result<LadderReport> r = measureLadder(MatmulParams{M, N, K, 2, 10}, allStepIds());
  if (!r) return r.status();
  md += fmt("\n#### C = A B, M = %d, N = %d, K = %d (median of up to 10 runs)\n\n", M, N, K) +
        "| step | precision | block | ms | TFLOP/s | of cuBLAS | of FP32 peak | of measured FMA | "
        "max abs error | max rel error | correct |\n"
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  bestOfCublas = 0;
  tile16 = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const StepResult& t : r->steps) {
    const StepInfo& s = stepInfo(t.step);
    if (handWritten(s) && s.precision == Precision::Float32)
      bestOfCublas = std::max(bestOfCublas, t.ofLibrary);
    if (s.id == StepId::Tiled16) tile16 = t.gflops;
    const bool f32 = s.precision == Precision::Float32;
    md += fmt("| %s | %s | %s | %.3f | %.2f | %.1f%% | %s | %s | %.2e | %.2e | %s |\n", s.label,
              precisionLabel(s.precision),
              handWritten(s) ? fmt("%d x %d", s.blockX, s.blockY).c_str() : "cuBLAS",
              t.m.kernel().medianMs, t.gflops / 1000, 100 * t.ofLibrary,
              f32 && ceil.fp32PeakGflops > 0
                  ? fmt("%.1f%%", 100 * t.gflops / ceil.fp32PeakGflops).c_str()
                  : "-",
              f32 ? fmt("%.1f%%", 100 * t.gflops / ceil.fp32Gflops).c_str() : "-",
              t.error.maxAbsError, t.error.maxRelError, t.error.ok() ? "yes" : "**NO**");
    rows.push_back({{"step", s.key},
                    {"precision", precisionLabel(s.precision)},
                    {"median_ms", t.m.kernel().medianMs},
                    {"runs", t.m.runs},
                    {"gflops", t.gflops},
                    {"of_cublas", t.ofLibrary},
                    {"max_abs_error", t.error.maxAbsError},
                    {"max_rel_error", t.error.maxRelError},
                    {"checked", t.error.checked},
                    {"correct", t.error.ok()}});
  }
  j["ladders"].push_back({{"M", M}, {"N", N}, {"K", K}, {"steps", rows}});
  return {};
}

int benchMatmul(const std::string& outDir) {
  using namespace matmul;
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  std::string md = "### Matmul, " + today() + ", " + rt.firstDeviceName + "\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  std::fprintf(stderr, "matmul: ceilings...\n");
  Result<Ceilings> ceil = measureCeilings();
  if (!ceil) return fail(ceil.status());
  md += fmt(
      "\nCeilings: device copy %.0f GB/s (peak %.0f), float32 FMAs %.1f TFLOP/s measured "
      "(peak %.1f).\n",
      ceil->memoryGBps, ceil->memoryPeakGBps, ceil->fp32Gflops / 1000, ceil->fp32PeakGflops / 1000);
  j["ceilings"] = {{"memory_gbps", ceil->memoryGBps},
                   {"memory_peak_gbps", ceil->memoryPeakGBps},
                   {"fp32_gflops", ceil->fp32Gflops},
                   {"fp32_peak_gflops", ceil->fp32PeakGflops}};
  double best = 0, tile16 = 0, bestOdd = 0, tile16Odd = 0;
  if (Status s = matmulTable(4096, 4096, 4096, *ceil, md, j, best, tile16); !s) return fail(s);
  md +=
      fmt("\nTargets at 4096^3: the best hand-written step at least 80%% of cuBLAS SGEMM: "
          "**%.1f%%**; the 16 x 16 tiled step at least the course's Numba tiled kernel (7.9 "
          "TFLOP/s on an H200): **%.2f TFLOP/s**.\n",
          100 * best, tile16 / 1000);
  j["best_of_cublas"] = best;
  j["tile16_gflops"] = tile16;
  if (Status s = matmulTable(4097, 4095, 4093, *ceil, md, j, bestOdd, tile16Odd); !s)
    return fail(s);

  std::fprintf(stderr, "matmul: the course's comparison...\n");
  Result<CourseReport> c = measureCourse(1000, true);
  if (!c) return fail(c.status());
  md += fmt("\n#### The course's comparison, %d x %d x %d float32 (CPU: %d threads)\n\n", c->n,
            c->n, c->n, c->cpuThreads) +
        "| | ms | GFLOP/s | max abs diff vs CPU | max abs error vs float64 |\n"
        "| --- | ---: | ---: | ---: | ---: |\n";
  for (const CourseRow& row : c->rows) {
    md += fmt("| %s | %.3f | %.1f | %.2e | %.2e |\n", row.what.c_str(), row.ms, row.gflops,
              row.maxAbsVsCpu, row.maxAbsVsRef);
    j["course"].push_back({{"what", row.what},
                           {"ms", row.ms},
                           {"gflops", row.gflops},
                           {"max_abs_vs_cpu", row.maxAbsVsCpu},
                           {"max_abs_vs_float64", row.maxAbsVsRef}});
  }

  std::fprintf(stderr, "matmul: GFLOP/s against size...\n");
  const std::span<const StepId> sweep = sweepStepIds();
  Result<std::vector<SweepPoint>> sw = measureSweep(defaultSweepSizes(), sweep);
  if (!sw) return fail(sw.status());
  md += "\n#### TFLOP/s against size (M = N = K = n, 3 runs each)\n\n| n |";
  for (StepId id : sweep)
    md += std::string(" ") + stepInfo(id).key + " |";
  md += "\n| ---: |";
  for (size_t i = 0; i < sweep.size(); ++i)
    md += " ---: |";
  for (int n : defaultSweepSizes()) {
    md += fmt("\n| %d |", n);
    for (StepId id : sweep)
      for (const SweepPoint& p : *sw)
        if (p.n == n && p.step == id)
          md += fmt(" %.2f%s |", p.gflops / 1000, p.ok ? "" : " (WRONG)");
  }
  md += "\n";
  for (const SweepPoint& p : *sw)
    j["sweep"].push_back(
        {{"n", p.n}, {"step", stepInfo(p.step).key}, {"gflops", p.gflops}, {"correct", p.ok}});
  return writeOutputs(outDir, "matmul", md, j) ? 0 : 1;
}

// [SECTION] bench reduction: Harris's table for 2^28 int32 and float32 (and float64 at 2^27)
// against CUB and the memory bandwidth, the float32 errors at the course's N, GB/s against N

Status reductionTable(const reduction::ReduceParams& p, std::string& md, nlohmann::json& j,
                      double& bestOfCub) {
  using namespace reduction;
  std::fprintf(stderr, "reduction: ladder, %lld %s...\n", p.n, typeLabel(p.type));
  Result<LadderReport> r = measureLadder(p, allStepIds());
  if (!r) return r.status();
  md += fmt("\n#### %s, N = %lld, %d threads per block (median of %d runs; theoretical bandwidth "
            "%.0f GB/s)\n\n",
            typeLabel(p.type), p.n, p.block, p.runs, r->peakGBps) +
        "| step | launches | ms | GB/s | step speedup | total speedup | of peak | of CUB | "
        "error | correct |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  bestOfCub = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const StepResult& t : r->steps) {
    const StepInfo& s = stepInfo(t.step);
    if (handWritten(s)) bestOfCub = std::max(bestOfCub, t.ofLibrary);
    md += fmt("| %s | %s | %.4f | %.0f | %s | %s | %.1f%% | %.1f%% | %.2e | %s |\n", s.label,
              t.plan.c_str(), t.ms, t.gbps,
              t.stepSpeedup > 0 ? fmt("%.2fx", t.stepSpeedup).c_str() : "-",
              t.totalSpeedup > 0 ? fmt("%.2fx", t.totalSpeedup).c_str() : "-", 100 * t.ofPeak,
              100 * t.ofLibrary, t.error, t.ok ? "yes" : "**NO**");
    rows.push_back({{"step", s.key},
                    {"launches", t.plan},
                    {"ms", t.ms},
                    {"kernel_median_ms", t.m.kernel().medianMs},
                    {"runs", t.m.runs},
                    {"gbps", t.gbps},
                    {"step_speedup", t.stepSpeedup},
                    {"total_speedup", t.totalSpeedup},
                    {"of_peak", t.ofPeak},
                    {"of_cub", t.ofLibrary},
                    {"sum", t.value},
                    {"error", t.error},
                    {"bound", t.bound},
                    {"correct", t.ok}});
  }
  j["ladders"].push_back({{"type", typeLabel(p.type)},
                          {"n", p.n},
                          {"block", p.block},
                          {"peak_gbps", r->peakGBps},
                          {"exact", static_cast<double>(r->cpu.exact)},
                          {"best_of_cub", bestOfCub},
                          {"steps", rows}});
  if (p.type == DataType::Float32) {
    const CpuSums& c = r->cpu;
    md +=
        fmt("\nExact sum %.6Lf; CPU float32 loop %.9g, NumPy's np.sum order %.9g, pairwise %.9g, "
            "Kahan %.9g.\n",
            c.exact, c.sequential, c.numpy, c.pairwise, c.kahan);
  }
  return {};
}

int benchReduction(const std::string& outDir) {
  using namespace reduction;
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  std::string md = "### Reduction, " + today() + ", " + rt.firstDeviceName + "\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  double bestInt = 0, bestFloat = 0, other = 0;
  if (Status s = reductionTable({DataType::Int32, 1LL << 28, 256}, md, j, bestInt); !s)
    return fail(s);
  if (Status s = reductionTable({DataType::Float32, 1LL << 28, 256}, md, j, bestFloat); !s)
    return fail(s);
  md +=
      fmt("\nTarget at 2^28: the best hand-written step at least 95%% of CUB DeviceReduce: int32 "
          "**%.1f%%**, float32 **%.1f%%**.\n",
          100 * bestInt, 100 * bestFloat);
  j["best_of_cub_int32"] = bestInt;
  j["best_of_cub_float32"] = bestFloat;
  if (Status s = reductionTable({DataType::Float64, 1LL << 27, 256}, md, j, other); !s)
    return fail(s);
  if (Status s = reductionTable({DataType::Float32, kCourseN, 256}, md, j, other); !s)
    return fail(s);

  std::fprintf(stderr, "reduction: GB/s against N...\n");
  const std::span<const StepId> sweep = sweepStepIds();
  const std::vector<long long> sizes = defaultSweepSizes();
  Result<std::vector<SweepPoint>> sw = measureSweep(DataType::Float32, 256, sizes, sweep);
  if (!sw) return fail(sw.status());
  md += "\n#### float32 GB/s against N (256 threads per block, 5 runs each)\n\n| N |";
  for (StepId id : sweep)
    md += std::string(" ") + stepInfo(id).key + " |";
  md += "\n| ---: |";
  for (size_t i = 0; i < sweep.size(); ++i)
    md += " ---: |";
  for (long long n : sizes) {
    md += fmt("\n| 2^%d |", static_cast<int>(std::log2(double(n))));
    for (StepId id : sweep)
      for (const SweepPoint& p : *sw)
        if (p.n == n && p.step == id)
          md += fmt(p.gbps < 10 ? " %.2f%s |" : " %.0f%s |", p.gbps, p.ok ? "" : " (WRONG)");
  }
  md += "\n";
  for (const SweepPoint& p : *sw)
    j["sweep"].push_back(
        {{"n", p.n}, {"step", stepInfo(p.step).key}, {"gbps", p.gbps}, {"correct", p.ok}});
  return writeOutputs(outDir, "reduction", md, j) ? 0 : 1;
}

const BenchEntry kBenches[] = {
    {"device", "copy bandwidths (device, pinned and pageable host)", &benchDevice},
    {"launch-config",
     "threads-per-block and blocks sweeps, interop against host copy, UI frame times",
     &benchLaunchConfig},
    {"transfers",
     "phases per transfer mode, streams against sequential copies, pinned bandwidth, crossover",
     &benchTransfers},
    {"precision", "FMA throughput (float32, float64, half) against the peaks; summation errors",
     &benchPrecision},
    {"memory", "transpose ladder against the copy ceiling; strided copy against the access model",
     &benchMemory},
    {"memory-model",
     "every modelled kernel once, with the model's sector and wavefront counts (run under ncu)",
     &benchMemoryModel},
    {"matmul",
     "matmul ladder at 4096^3 against cuBLAS and the FP32 peak, an odd size, the course's "
     "comparison, TFLOP/s against size",
     &benchMatmul},
    {"reduction",
     "reduction ladder for 2^28 int32 and float32 against CUB and the memory bandwidth, float64, "
     "the course's N, GB/s against N",
     &benchReduction},
};

}  // namespace

std::span<const BenchEntry> benchRegistry() {
  return kBenches;
}

int runBench(const std::string& id, const std::string& outDir) {
  for (const BenchEntry& b : kBenches)
    if (id == b.id) return b.run(outDir);
  return 2;
}

}  // namespace cudalab
