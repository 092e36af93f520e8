// The transfers lesson's benchmark (`cudalab bench transfers`), registered through its line in
// lessons/registry.cpp. The helpers (tables, dates, output files) are in core/bench.hpp.
#include "core/bench.hpp"
#include "lessons/transfers/transfers_lesson.hpp"

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
#include "common/runtime_info.hpp"
#include "device/device_bandwidth.hpp"
#include "launch_config/launch_config.hpp"
#include "reduction/reduction.hpp"
#include "transfers/transfers.hpp"
#include "platform/gl.hpp"
#include "ui/renderer.hpp"
#include "ui/shell.hpp"

namespace cudalab {

using namespace device;
using namespace launch_config;
using namespace transfers;
namespace {

// [SECTION] bench transfers: phases per mode, streams against sequential copies, pinned
// bandwidth, crossover sweep

// `cudalab bench transfers`: phases per transfer mode, streams against sequential copies, pinned
// bandwidth, crossover.
int benchTransfers(const BenchOptions& opt) {
  const RuntimeInfo& rt = opt.rt;
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  std::string md = "### Transfers, " + today() + ", " + rt.firstDeviceName + "\n\n";

  auto step = [](const char* what) {
    std::fprintf(stderr, "bench transfers: %s\n", what);
    std::fflush(stderr);
  };
  // 1. The copy ceilings: the device lesson's measurement and the PCIe link.
  step("copy bandwidths");
  BandwidthParams bp;
  if (opt.quick) bp = {1, 1, 2};  // MiB, MiB, repetitions: for the sanitizers
  Result<BandwidthReport> bw = measureBandwidth(0, bp, nullptr, nullptr);
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
  p.n = opt.quick ? (1LL << 16) + 5 : 1LL << 26;
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
      Result<PlanRun> r1 =
          (*session)->run(planMode(one, m.mode), RunOptions{1, opt.quick ? 1 : 5, false}, nullptr);
      if (!r1) return fail(r1.status());
      Result<PlanRun> r10 =
          (*session)->run(planMode(ten, m.mode), RunOptions{1, opt.quick ? 1 : 3, false}, nullptr);
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
  Result<PlanRun> probe = (*session)->run(planMode(it, TransferMode::ExplicitPinned),
                                          RunOptions{1, opt.quick ? 1 : 3, false}, nullptr);
  if (!probe) return fail(probe.status());
  const double ratioWork = probe->phases[0].medianMs / probe->phases[1].medianMs;
  it.work =
      std::clamp(static_cast<int>(it.work * ratioWork), 1, static_cast<int>(kTransferWork.max));
  Result<PlanRun> seq = (*session)->run(planMode(it, TransferMode::ExplicitPinned),
                                        RunOptions{1, opt.quick ? 1 : 5, false}, nullptr);
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
    Result<PlanRun> r = (*session)->run(planMode(it, TransferMode::Streams),
                                        RunOptions{1, opt.quick ? 1 : 5, false}, nullptr);
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
  for (long long n : sweepSizes(opt.quick ? 1LL << 14 : 1LL << 26)) {
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
  return writeOutputs(opt.outDir, "transfers", md, j) ? 0 : 1;
}

}  // namespace

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"transfers", &benchTransfers}};
const std::span<const BenchEntry> kTransfersBenches = kBenches;

}  // namespace cudalab
