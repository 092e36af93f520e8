// The device lesson's "measure" button: how fast data really moves, in GB/s.
//
// Theoretical peaks (models/arch.hpp) say what the datasheet promises; this measures what a copy
// achieves: a large device-to-device copy (the ceiling every memory-bound kernel is compared
// against) and host<->device copies from pinned and from ordinary (pageable) host memory, which
// show why pinned buffers matter.
//
// [SECTION] Variants     the one table of copy kinds: drives the UI rows, the CLI and the tests
// [SECTION] Parameters   ParamSpec constants and validate(), pure and testable without a GPU
// [SECTION] Measurement  measureBandwidth(), run on a worker thread
//
//   BandwidthParams p{kDeviceCopyMiB.defaultValue, kHostCopyMiB.defaultValue, 10};
//   if (Status s = validate(p, freeBytes); !s) return show(s.sentence());
//   std::atomic<bool> cancel{false};
//   Result<BandwidthReport> r = measureBandwidth(0, p, &cancel, [](float f, const char* what) {
//     postProgress(f, what);   // called on the measuring thread
//   });
//   for (const CopyResult& c : r->results) show(copyVariant(c.kind).label, c.gbpsMedian);
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "common/params.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"

namespace cudalab::device {

// ---------------------------------------------------------------------------------------------
// [SECTION] Variants
// ---------------------------------------------------------------------------------------------

enum class CopyKind {
  DeviceToDevice,
  HostToDevicePinned,
  DeviceToHostPinned,
  HostToDevicePageable,
  DeviceToHostPageable,
};

struct CopyVariant {
  CopyKind kind;
  const char* id;     // stable name for the CLI, JSON and presets: "d2d", "h2d_pinned", ...
  const char* label;  // what the UI shows
  const char* help;   // tooltip: what is copied and what the number teaches
  // Bytes of memory traffic per byte copied: 2 for device-to-device (every byte is read from
  // and written to the same DRAM), 1 when the bus to the host carries each byte once.
  int bytesCountedPerByte;
};

// In measuring order: device copy first, then pinned and pageable host copies.
std::span<const CopyVariant> copyVariants();

// The table entry of a kind (every kind has one).
const CopyVariant& copyVariant(CopyKind kind);

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters
// ---------------------------------------------------------------------------------------------

// The device copy needs two buffers of this size in device memory. The default, 1 GiB, is far
// larger than any L2 cache (50 MiB on H100), so the copy measures DRAM, not the cache.
inline constexpr ParamSpec kDeviceCopyMiB{
    .id = "device_copy_mib",
    .label = "Device copy size",
    .min = 1,
    .max = 8192,
    .defaultValue = 1024,
    .unit = "MiB",
    .help =
        "Size of the device-to-device copy. It needs two buffers of this size in device memory. "
        "Keep it well above the L2 cache size, or the copy measures the cache instead of DRAM.",
    .logScale = true};

// Host copies use their own, smaller size: the PCIe/NVLink rate is reached by a few tens of MiB,
// and larger pinned buffers only lock more of the computer's RAM away from the operating system
// (pinned pages cannot be swapped). 2 GiB is the most a teaching app should pin.
inline constexpr ParamSpec kHostCopyMiB{
    .id = "host_copy_mib",
    .label = "Host copy size",
    .min = 1,
    .max = 2048,
    .defaultValue = 256,
    .unit = "MiB",
    .help =
        "Size of the host<->device copies. Each needs one device buffer and one pinned and one "
        "ordinary host buffer of this size. Pinned memory cannot be swapped out, so very large "
        "sizes take RAM away from other programs.",
    .logScale = true};

inline constexpr ParamSpec kBandwidthRepetitions{
    .id = "repetitions",
    .label = "Repetitions",
    .min = 1,
    .max = 100,
    .defaultValue = 10,
    .help =
        "How many timed copies of each kind, after one untimed warm-up. The median is reported "
        "because it ignores the occasional run slowed by something else on the machine."};

struct BandwidthParams {
  double deviceCopyMiB = kDeviceCopyMiB.defaultValue;
  double hostCopyMiB = kHostCopyMiB.defaultValue;
  int repetitions = static_cast<int>(kBandwidthRepetitions.defaultValue);
};

// Refuses sizes outside the ParamSpec ranges and sizes whose buffers do not fit into
// `freeDeviceBytes` (cudaMemGetInfo's free memory), with a sentence that says why. Pure.
Status validate(const BandwidthParams& p, size_t freeDeviceBytes);

// ---------------------------------------------------------------------------------------------
// [SECTION] Measurement
// ---------------------------------------------------------------------------------------------

struct CopyResult {
  CopyKind kind;
  size_t bytes;     // size of one copy
  double msMedian;  // per copy, from CUDA events around it
  double msMin;
  double msMax;
  double gbpsMedian;  // bytes x bytesCountedPerByte / median time, in 10^9 bytes per second
};

struct BandwidthReport {
  int device = 0;
  BandwidthParams params;           // what was asked for
  std::vector<CopyResult> results;  // one per copyVariants() entry, in that order
};

// Called after each copy with the fraction done (0..1) and the label of the variant running.
using BandwidthProgress = std::function<void(float fraction, const char* what)>;

// Measures every variant on `device`, on the calling thread (the app calls it from a worker
// thread; it blocks for about a second at the defaults). It makes `device` current on this thread
// and restores the previous one. `cancel` (may be null) is checked between copies: once set, the
// call returns Status "Measurement cancelled." after freeing everything. `progress` may be
// empty. Every allocation is freed on every path.
Result<BandwidthReport> measureBandwidth(int device, const BandwidthParams& params,
                                         const std::atomic<bool>* cancel,
                                         const BandwidthProgress& progress);

// Median, minimum and maximum of a non-empty list of times; exposed for tests.
struct TimeStats {
  double median, min, max;
};
TimeStats timeStats(std::vector<double> ms);

// The lesson's parameter table: every number its panel edits (Lesson::parameters()).
inline constexpr ParamSpec kDeviceParams[] = {kDeviceCopyMiB, kHostCopyMiB, kBandwidthRepetitions};

}  // namespace cudalab::device
