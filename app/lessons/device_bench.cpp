// The device lesson's benchmark (`cudalab bench device`), registered through its line in
// lessons/registry.cpp. The helpers (tables, dates, output files) are in bench.hpp.
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

// [SECTION] bench device: copy bandwidths

int benchDevice(const BenchOptions& opt) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  BandwidthParams p;
  if (opt.quick) p = {1, 1, 2};  // MiB, MiB, repetitions
  Result<BandwidthReport> rep = measureBandwidth(0, p, nullptr, nullptr);
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
  return writeOutputs(opt.outDir, "device", md, j) ? 0 : 1;
}

}  // namespace

std::span<const BenchEntry> deviceBenches() {
  static const BenchEntry k[] = {
      {"device", "copy bandwidths (device, pinned and pageable host)", &benchDevice},
  };
  return k;
}

}  // namespace cudalab
