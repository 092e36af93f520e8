// The device lesson's benchmark (`cudalab bench device`), registered through its line in
// lessons/registry.cpp. The helpers (tables, dates, output files) are in core/bench.hpp.
#include "core/bench.hpp"
#include "lessons/device/device_lesson.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/runtime_info.hpp"
#include "device/device_bandwidth.hpp"

namespace cudalab {

namespace {

using namespace device;

// [SECTION] bench device: copy bandwidths

// `cudalab bench device`: copy bandwidths (device, pinned and pageable host).
int benchDevice(const BenchOptions& opt) {
  const RuntimeInfo& rt = opt.rt;
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

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"device", &benchDevice}};
const std::span<const BenchEntry> kDeviceBenches = kBenches;

}  // namespace cudalab
