// The launch-config lesson's benchmark (`cudalab bench launch-config`), registered through its line
// in lessons/registry.cpp. The helpers (tables, dates, output files) are in core/bench.hpp.
#include "core/bench.hpp"
#include "lessons/launch_config/launch_config_lesson.hpp"
#include "lessons/launch_config/launch_config_counters_panel.hpp"

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
#include "launch_config/launch_config.hpp"
#include "matmul/matmul.hpp"
#include "reduction/reduction.hpp"
#include "transfers/transfers.hpp"
#include "platform/gl.hpp"
#include "platform/headless_egl.hpp"
#include "platform/interop.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

namespace cudalab {

using namespace launch_config;
using namespace transfers;
namespace {

// [SECTION] bench launch-config: the lesson's sweeps, interop against host copy, UI frame times

struct SweepRow {
  LaunchConfig c;
  Measurement m;
};

Result<std::vector<SweepRow>> runSweep(const std::vector<LaunchConfig>& configs,
                                       const DeviceLimits& lim, bool quick) {
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  std::vector<SweepRow> rows;
  for (const LaunchConfig& c : configs) {
    Result<LaunchShape> s = shapeFor(c, lim);
    if (!s) return s.status();
    std::unique_ptr<Workload> w = makeDoublingWorkload(c, *s);
    MeasureOptions opt;
    opt.runs = quick ? 2 : 20;
    opt.warmup = quick ? 1 : opt.warmup;
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
Status uiFrameTimesDuringSweep(std::span<const LessonEntry> lessons, std::vector<double>& frameMs,
                               int& points) {
  Settings settings;
  settings.lesson = "launch-config";
  Shell shell(lessons, settings, queryRuntime(), "bench", /*headless=*/true);
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

// `cudalab bench launch-config`: threads-per-block and blocks sweeps, interop against host copy, UI
// frame times.
int benchLaunchConfig(const BenchOptions& opt) {
  Result<DeviceLimits> lim = queryLimits(0);
  if (!lim) return fail(lim.status());
  LaunchConfig base;               // the course's 30 million doubles, 1D guarded
  if (opt.quick) base.n = 100003;  // odd, so the guard matters
  Result<std::vector<SweepRow>> tpb = runSweep(threadsPerBlockSweep(base), *lim, opt.quick);
  if (!tpb) return fail(tpb.status());
  Result<std::vector<SweepRow>> blocks = runSweep(blocksSweep(base, *lim), *lim, opt.quick);
  if (!blocks) return fail(blocks.status());

  HeadlessContext gl;
  if (Status s = gl.create(0); !s) return fail(s);
  double interopMs = 0, hostMs = 0;
  if (Status s = interopVsHostCopy(interopMs, hostMs, opt.quick ? 3 : 200); !s) return fail(s);
  std::vector<double> frameMs;
  int frames = 0;
  // Quick runs time no UI: the lesson's sweep runs at its default size, which is the slow part
  // under a sanitizer, and its kernels are the ones measured above.
  if (!opt.quick)
    if (Status s = uiFrameTimesDuringSweep(opt.lessons, frameMs, frames); !s) return fail(s);

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
  return writeOutputs(opt.outDir, "launch-config", md, j) ? 0 : 1;
}

}  // namespace

// [SECTION] bench counters-launch-config: the default launch at every block size under the
// counters, occupancy reached beside the calculator's
// `cudalab bench counters-launch-config`: the launch at 32 to 1024 threads per block under the
// GPU's counters (CUPTI): occupancy reached against the calculator's.
int benchLaunchCounters(const BenchOptions& opt) {
  Result<DeviceLimits> limits = queryLimits(0);
  if (!limits) return fail(limits.status());
  int code = 0;
  // The lesson's default (an automatic grid), then a grid-stride loop over just 2 blocks per
  // SM: the calculator promises the same occupancy, the SMs reach less.
  LaunchConfig strided = withVariant(LaunchConfig{}, *findLaunchVariant("1d_grid_stride"));
  strided.autoBlocks = false;
  strided.blocks = 2LL * limits->smCount;
  LaunchConfig plain;
  if (opt.quick) plain.n = strided.n = 100003;
  for (const auto& [id, c] : {std::pair<const char*, LaunchConfig>{"counters-launch-config", plain},
                              {"counters-launch-config-stride", strided}})
    code |= writeCountersBench(
        opt.outDir, id, "The launch under the GPU's counters: " + describe(c),
        measureLaunchCounters(c, *limits, nullptr, {}), makeLaunchCountersPanel().spec());
  return code;
}

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"counters-launch-config", &benchLaunchCounters},
                                   {"launch-config", &benchLaunchConfig}};
const std::span<const BenchEntry> kLaunchConfigBenches = kBenches;

}  // namespace cudalab
