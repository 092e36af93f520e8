// `cudalab [--lesson ID] soak --minutes M [--seed S] [--out DIR]`: hours of classroom use,
// compressed.
//
// Headless (EGL), it cycles through every lesson and, in each, sets random valid and invalid
// parameters through the lesson's bindings (the panels' own path: a valid value is set as the
// slider sets it, an invalid one must be refused with a sentence), presses every action, cancels
// some midway, and draws the UI all the while, sometimes at 1 x 1 pixels and at projector scale.
// (Faults are not injected here: CUDA cannot go on in a process after one, and the app's answer,
// starting again, is tested by the GPU tests through the binary.)
//
// Every minute it records the host's resident memory, the GPU memory in use, the open file
// descriptors and the frame times; at the baseline and at the end it also makes every lesson
// afresh (Shell::remakeLessons) and reads the memory again: what outlives the lessons. Host and
// GPU memory are judged both ways (the GPU as the lessons live beyond what the app's own arrays
// and images hold, heldDeviceBytes(), since those follow the sizes the lessons were last given).
// It ends with a
// table (printed, and written as bench-soak.md and bench-soak.json to --out) and exits 1 if memory
// or descriptors grew beyond the stated tolerances, any checked result was wrong, a valid value was
// refused or an invalid one taken, a fault was not recovered from, or a cancel took longer than its
// limit. A crash ends the process, so whoever runs the soak sees a signal instead of the table.
#pragma once

#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudalab {

struct SoakOptions {
  double minutes = 10;
  unsigned seed = 0;  // 0: from the clock
  std::string outDir = ".";
  std::string lesson;  // only this lesson (`cudalab --lesson ID soak`); empty: every lesson
};

// Tolerances, stated in the table: growth from the first sample after one whole cycle through
// the lessons (when fonts, caches and the playground's worker exist) to the last samples.
inline constexpr double kSoakRssToleranceMiB = 64;
inline constexpr double kSoakGpuToleranceMiB = 64;
inline constexpr int kSoakFdTolerance = 4;
// Device buffers the app's own owners hold between lessons (heldDeviceBuffers()): a few come and
// go with what each lesson last ran; one a run kept would pass this within minutes.
inline constexpr int kSoakHeldBufferTolerance = 8;
// A cancelled action must stop within this long after the kernel that was running ends; the soak
// measures from the cancel to the lesson being idle, which includes that kernel.
inline constexpr double kSoakCancelLimitSeconds = 15;
// A frame that takes longer is a stall a class would see: the soak prints where the UI thread was
// (platform/stall_watch.hpp) and counts it in the table's summary.
inline constexpr double kSoakStallSeconds = 2;

int runSoak(const SoakOptions& o);

// One memory reading for the growth judgement. A negative value (the GPU did not answer) says
// nothing either way; nor does one taken while the lessons made afresh at the baseline were still
// being built again by their first visits (`settling`): they held less then than they do as they
// live, and the first third's floor would be too low (an H100 soak read 612 MiB there and 756 MiB
// ten minutes on, the difference mostly a stencil frame's buffers).
struct SoakReading {
  double mib = -1;
  bool settling = false;
};

// The floor of the last third of the readings that count against the floor of their first third:
// a leak raises the floor; memory that comes and goes (the playground's worker process and its
// CUDA context, the allocator's arenas) does not. None (not judged) with fewer than two readings
// that count.
std::optional<double> soakFloorGrowth(const std::vector<SoakReading>& readings);

// The resident MiB of each kind of mapping in a /proc/PID/smaps text: a file's path, [heap],
// [stack] (every thread's) or "anonymous". The soak takes it at the baseline and at the end.
std::map<std::string, double> residentByMapping(std::istream& smaps);

}  // namespace cudalab
