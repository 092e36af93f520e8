// The soak: every lesson and action, with random parameters, for M minutes; see soak.hpp.
#include "commands/soak.hpp"

#include <cuda_runtime_api.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "core/bench.hpp"
#include "common/check_tally.hpp"
#include "common/cuda_raii.hpp"
#include "common/device_fault.hpp"
#include "lessons/registry.hpp"
#include "platform/crash_report.hpp"
#include "platform/framebuffer.hpp"
#include "platform/gl.hpp"
#include "platform/headless_egl.hpp"
#include "platform/stall_watch.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

namespace cudalab {

// Taken at the baseline and at the end, the difference says whether a growth is malloc's main heap,
// anonymous mappings (other threads' malloc arenas, large blocks, a library's own pools) or a
// driver's mapped files.
std::map<std::string, double> residentByMapping(std::istream& in) {
  std::map<std::string, double> out;
  std::string line, name = "anonymous";
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < 17 &&
        line.find(':') > line.find(' ')) {
      // "start-end perms offset dev inode   path": the path is the sixth field, if any.
      std::istringstream f(line);
      std::string field;
      for (int i = 0; i < 5; ++i)
        f >> field;
      // An anonymous mapping has no path, and getline leaves its string alone when there is
      // nothing left to read: without the clear() it would keep the previous mapping's name.
      name.clear();
      std::getline(f >> std::ws, name);
      if (name.empty()) name = "anonymous";
      if (name.rfind("[stack", 0) == 0) name = "[stack]";
    } else if (line.rfind("Rss:", 0) == 0) {
      out[name] += std::strtod(line.c_str() + 4, nullptr) / 1024;
    }
  }
  return out;
}

std::optional<double> soakFloorGrowth(const std::vector<SoakReading>& readings) {
  // The thirds of the readings that count, so that leaving some out does not empty a third.
  std::vector<double> r;
  for (const SoakReading& x : readings)
    if (x.mib >= 0 && !x.settling) r.push_back(x.mib);
  if (r.size() < 2) return std::nullopt;
  const auto third = static_cast<std::ptrdiff_t>(std::max<size_t>(1, r.size() / 3));
  return *std::min_element(r.end() - third, r.end()) -
         *std::min_element(r.begin(), r.begin() + third);
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// [SECTION] what is sampled every minute

double rssMiB() {
  std::ifstream in("/proc/self/statm");
  long long pages = 0, resident = 0;
  in >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

// What malloc has handed out and not taken back (every arena, and its own mmapped blocks): when
// the resident size grows and this does not, the growth is outside malloc's live blocks (the
// allocator's fragmentation across threads' arenas, or a library's own mappings).
double mallocInUseMiB() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd) / (1 << 20);
}

std::map<std::string, double> residentByMappingNow() {
  std::ifstream smaps("/proc/self/smaps");
  return residentByMapping(smaps);
}

// Entries of a /proc/self folder: threads (task) or open file descriptors (fd).
int entriesIn(const char* folder) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(folder, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

// What the app's own arrays and images hold on the device now, in MiB.
double heldDeviceMiB() {
  return static_cast<double>(heldDeviceBytes().load()) / (1 << 20);
}

// The whole device's memory in use (every process on it), in MiB; -1 without a GPU.
double gpuUsedMiB(bool gpu) {
  if (!gpu) return -1;
  size_t freeB = 0, totalB = 0;
  if (cudaMemGetInfo(&freeB, &totalB) != cudaSuccess) {
    // A launch error another lesson left on this thread is reported by the next call: clear it
    // and ask again once.
    (void)cudaGetLastError();
    if (cudaMemGetInfo(&freeB, &totalB) != cudaSuccess) return -1;
  }
  return static_cast<double>(totalB - freeB) / (1 << 20);
}

// The lowest of the readings over 1.5 s: a process that just ended (the playground's worker, a
// counters helper, gone with the lessons made afresh) may give its memory back a moment after it
// was waited for (the every-minute afresh readings of an H200 soak were 635 MiB mostly, 683 and
// 691 twice).
double settledGpuUsedMiB(bool gpu) {
  double low = gpuUsedMiB(gpu);
  for (int i = 0; i < 15 && low >= 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (const double r = gpuUsedMiB(gpu); r >= 0) low = std::min(low, r);
  }
  return low;
}

struct Sample {
  double minute = 0;
  double rssMiB = 0, gpuMiB = -1, mallocMiB = 0;
  // Where a growing resident size grows: the pinned host buffers the app holds (PinnedArray and
  // the interop's staging buffer; outside malloc), what is resident through the NVIDIA driver's
  // device files (/dev/nvidia*: the driver's mappings of host memory, where pinned buffers may
  // live), and the anonymous and [heap] resident memory beyond malloc's live blocks (free memory
  // malloc keeps in its arenas, thread stacks, libraries' own mappings, and pinned buffers if the
  // driver maps them anonymously).
  double pinnedMiB = 0, driverMappedMiB = 0, outsideMallocMiB = 0;
  // At the baseline and at the end only, the same moment with every lesson made afresh
  // (Shell::remakeLessons) and no run pinned: what outlives the lessons, -1 at other samples. The
  // readings above swing by hundreds of MiB with the random sizes each lesson holds the data and
  // results of (malloc's live blocks went from 394 to 605 MiB within one H200 soak); these do
  // not. In between, the lessons live on as in a class, so that what a lesson or the playground's
  // worker accumulates shows in the floors of the readings above.
  double freshRssMiB = -1, freshMallocMiB = -1, freshGpuMiB = -1;
  // The lowest GPU memory in use read between two lessons since the previous sample: then no
  // lesson's work, and no counters helper it started, runs. What the lessons keep for the sizes
  // they were last given stays, though (a stencil frame's buffers: about 60 MiB at 1280 x 720,
  // 140 at full HD, 540 at 3840 x 2160), so this follows the random sizes. `gpuHeldMiB` is what
  // the app's own arrays and images hold at the sample (heldDeviceBytes()); `gpuBeyondHeldFloorMiB`
  // the lowest, between lessons, of the memory in use beyond what they held at that moment: the
  // context, libraries' workspaces, the playground's worker, and anything no owner frees. The GPU
  // is judged on that.
  double gpuFloorMiB = -1, gpuHeldMiB = -1, gpuBeyondHeldFloorMiB = -1;
  // The fewest device buffers the app's owners held between lessons since the previous sample
  // (heldDeviceBuffers()): judged too, as "beyond held" cannot see a lesson that keeps adding them.
  double heldBuffersFloor = -1;
  // Some lesson made afresh at the baseline had not been visited again when the sample was taken,
  // or at some reading between lessons since the previous one: left out of the live judgements.
  bool settling = false;
  int fds = 0, threads = 0;
  int frames = 0;
  double frameMedianMs = 0, frameP95Ms = 0, frameMaxMs = 0;
  long long checksPassed = 0, checksFailed = 0;
};

// soakFloorGrowth over the samples from `from` on (the baseline, or the one after it).
template <class F>
std::optional<double> floorGrowth(const std::vector<Sample>& s, size_t from, F value) {
  std::vector<SoakReading> r;
  for (size_t i = from; i < s.size(); ++i)
    r.push_back({value(s[i]), s[i].settling});
  return soakFloorGrowth(r);
}

// The report's columns, in the table and the JSON alike: header, JSON key, printf format, and
// whether a negative value means no reading ("-"; "other anonymous" may be negative).
struct Column {
  const char* header;
  const char* key;
  const char* format;
  bool dashWhenNegative;
  double (*value)(const Sample&);
};
const Column kColumns[] = {
    {"host RSS MiB", "rss_mib", "%.1f", false, [](const Sample& s) { return s.rssMiB; }},
    {"malloc in use MiB", "malloc_in_use_mib", "%.1f", false,
     [](const Sample& s) { return s.mallocMiB; }},
    {"pinned MiB", "pinned_mib", "%.1f", false, [](const Sample& s) { return s.pinnedMiB; }},
    {"/dev/nvidia* MiB", "nvidia_device_files_mib", "%.1f", false,
     [](const Sample& s) { return s.driverMappedMiB; }},
    {"other anonymous MiB", "other_anonymous_mib", "%.1f", false,
     [](const Sample& s) { return s.outsideMallocMiB; }},
    {"threads", "threads", "%.0f", false, [](const Sample& s) { return double(s.threads); }},
    {"GPU in use MiB", "gpu_mib", "%.0f", true, [](const Sample& s) { return s.gpuMiB; }},
    {"GPU between lessons, lowest MiB", "gpu_between_lessons_lowest_mib", "%.0f", true,
     [](const Sample& s) { return s.gpuFloorMiB; }},
    {"GPU held by the app's arrays and images MiB", "gpu_held_by_app_mib", "%.0f", true,
     [](const Sample& s) { return s.gpuHeldMiB; }},
    {"GPU beyond them between lessons, lowest MiB", "gpu_beyond_held_between_lessons_lowest_mib",
     "%.0f", true, [](const Sample& s) { return s.gpuBeyondHeldFloorMiB; }},
    {"device buffers held, fewest between lessons", "held_device_buffers_between_lessons_fewest",
     "%.0f", true, [](const Sample& s) { return s.heldBuffersFloor; }},
    {"lessons afresh: host RSS MiB", "lessons_afresh_rss_mib", "%.1f", true,
     [](const Sample& s) { return s.freshRssMiB; }},
    {"lessons afresh: malloc MiB", "lessons_afresh_malloc_in_use_mib", "%.1f", true,
     [](const Sample& s) { return s.freshMallocMiB; }},
    {"lessons afresh: GPU MiB", "lessons_afresh_gpu_mib", "%.0f", true,
     [](const Sample& s) { return s.freshGpuMiB; }},
    {"open files", "fds", "%.0f", false, [](const Sample& s) { return double(s.fds); }},
    {"frames", "frames", "%.0f", false, [](const Sample& s) { return double(s.frames); }},
    {"frame median ms", "frame_median_ms", "%.2f", false,
     [](const Sample& s) { return s.frameMedianMs; }},
    {"frame p95 ms", "frame_p95_ms", "%.2f", false, [](const Sample& s) { return s.frameP95Ms; }},
    {"frame max ms", "frame_max_ms", "%.2f", false, [](const Sample& s) { return s.frameMaxMs; }},
    {"checks passed", "checks_passed", "%.0f", false,
     [](const Sample& s) { return double(s.checksPassed); }},
    {"checks failed", "checks_failed", "%.0f", false,
     [](const Sample& s) { return double(s.checksFailed); }},
};

// [SECTION] the soak

class Soak {
 public:
  Soak(const SoakOptions& o, Shell& shell, UiRenderer& renderer, bool gpu)
      : o_(o), shell_(shell), renderer_(renderer), gpu_(gpu), rng_(seed(o)) {}

  unsigned seedUsed() const { return seed_; }

  int run() {
    std::error_code ec;
    std::filesystem::create_directories(o_.outDir, ec);  // for soak-doing.txt from the start
    const Clock::time_point start = started_;
    const double total = o_.minutes * 60;
    auto nextSample = start + std::chrono::seconds(60);
    int cycle = 0;
    // A GPU fault ends the soak: CUDA cannot go on in this process, and its GL may block.
    while (secondsSince(start) < total && !deviceFaulted()) {
      for (const LessonEntry& e : lessonRegistry()) {
        if (secondsSince(start) >= total || deviceFaulted()) break;
        if (!o_.lesson.empty() && o_.lesson != e.info->id) continue;
        // Each lesson's share of any growth: the resident size around its visits, summed from
        // the baseline on (first visits build fonts, caches and pools that stay).
        malloc_trim(0);
        const double before = rssMiB(), gpuBefore = gpuUsedMiB(gpu_), heldBefore = heldDeviceMiB();
        visit(e.info->id, start, total);
        malloc_trim(0);
        const double gpuAfter = gpuUsedMiB(gpu_), heldAfter = heldDeviceMiB();
        heldBuffersFloorSinceSample_ =
            std::min(heldBuffersFloorSinceSample_, static_cast<double>(heldDeviceBuffers().load()));
        if (gpuAfter >= 0) {
          gpuFloorSinceSample_ = std::min(gpuFloorSinceSample_, gpuAfter);
          gpuBeyondHeldFloorSinceSample_ =
              std::min(gpuBeyondHeldFloorSinceSample_, gpuAfter - heldAfter);
        }
        // A lesson's first visit after it was made afresh builds it again: not its growth.
        if (baselineTaken_ && !remadeNotYetVisited_.erase(e.info->id)) {
          lessonRssMiB_[e.info->id] += rssMiB() - before;
          // The GPU's beyond what the app's owners hold; what they hold on its own line.
          if (gpuBefore >= 0 && gpuAfter >= 0)
            lessonGpuMiB_[e.info->id] += (gpuAfter - heldAfter) - (gpuBefore - heldBefore);
          if (gpu_) lessonHeldMiB_[e.info->id] += heldAfter - heldBefore;
        }
        if (Clock::now() >= nextSample) {
          sampleUnlessJustTaken(secondsSince(start) / 60);  // the baseline may just have been
          nextSample += std::chrono::seconds(60);
        }
      }
      if (++cycle >= 2 && !baselineTaken_ && secondsSince(start) >= std::min(120.0, total / 4)) {
        // The baseline: after two whole cycles and two minutes (a quarter of a short run), fonts,
        // caches, the allocator's per-thread arenas and the playground's worker process exist.
        sampleUnlessJustTaken(secondsSince(start) / 60);
        baseline_ = samples_.size() - 1;
        // The GPU is judged from the next sample on: the baseline's lowest reading reaches back
        // to before every lesson had run (an H200 soak read 620 MiB there, 754 MiB at the
        // baseline, and took the difference for growth).
        gpuFloorSinceSample_ = gpuBeyondHeldFloorSinceSample_ = heldBuffersFloorSinceSample_ =
            1e300;
        baselineTaken_ = true;
        readAfresh(samples_.back());
        mappingsAtBaseline_ = residentByMappingNow();
      }
    }
    sampleUnlessJustTaken(secondsSince(start) / 60);
    // Not after a fault: CUDA and its GL may block in the lessons' teardown; the report first.
    if (!deviceFaulted()) readAfresh(samples_.back());
    cycles_ = cycle;
    return report();
  }

 private:
  unsigned seed(const SoakOptions& o) {
    seed_ = o.seed ? o.seed : static_cast<unsigned>(Clock::now().time_since_epoch().count());
    return seed_;
  }

  // One frame of the whole UI, timed; sometimes at 1 x 1 pixels or at projector scale, as a
  // window resized, minimised or moved to a projector would draw it.
  void frame() {
    int w = 1280, h = 800;
    float scale = 1;
    const auto r = rng_() % 100;
    if (r < 3)
      w = h = 1;  // a minimised window
    else if (r < 6)
      scale = 2;
    const auto t0 = Clock::now();
    stallWatch_.frameStarted();
    renderer_.frame(w, h, scale, true, false, 1.0f / 60.0f);
    glFinish();
    stallWatch_.frameEnded();
    if (w > 1) frameMs_.push_back(secondsSince(t0) * 1000);
  }

  void frames(int n) {
    for (int i = 0; i < n; ++i)
      frame();
  }

  // Draws until the lesson is idle or `limit` seconds pass; returns whether it became idle. (The
  // current lesson's: another lesson takes its results only when it is drawn again.)
  bool waitIdle(double limit) {
    const auto t0 = Clock::now();
    while (shell_.current().busy()) {
      frame();
      if (secondsSince(t0) > limit) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    frames(2);  // the frame that takes the result and the one that draws it
    return true;
  }

  // What the soak does now: said by a crash (platform/crash_report.hpp) with its stack, and kept in
  // DIR/soak-doing.txt, which outlasts a process ended by SIGKILL, where nothing can be said (a
  // soak on an H200 once ended after 18 minutes leaving an empty log).
  void doing(const std::string& what) {
    setCrashContext(("the soak was " + what).c_str());
    // Written aside and renamed over the old one: a SIGKILL mid-write leaves a whole file.
    const std::string path = o_.outDir + "/soak-doing.txt";
    std::ofstream(path + ".new", std::ios::trunc)
        << fmt("%.2f min: ", secondsSince(started_) / 60) << what << "\n";
    std::error_code ec;
    std::filesystem::rename(path + ".new", path, ec);
  }

  void problem(std::string what) {
    std::fprintf(stderr, "soak: %s\n", what.c_str());
    if (problems_.size() < 50) problems_.push_back(std::move(what));
  }

  // Cancels everything the lesson runs and waits for it to stop.
  void cancelAndWait(const std::string& where) {
    const auto t0 = Clock::now();
    shell_.current().cancelAll();
    const bool idle = waitIdle(120);
    const double s = secondsSince(t0);
    worstCancel_ = std::max(worstCancel_, s);
    ++cancels_;
    if (!idle || s > kSoakCancelLimitSeconds)
      problem(where + ": the cancelled work stopped only after " + fmt("%.1f", s) + " s");
  }

  double randomValue(const ParamSpec& p) {
    std::uniform_real_distribution<double> u(0, 1);
    // Mostly near the default (where a class spends its time), sometimes anywhere in the range.
    double lo = p.min, hi = p.max;
    if (u(rng_) < 0.7) hi = std::min(p.max, std::max(p.min, p.defaultValue) * 4);
    double v = lo;
    if (p.logScale && lo > 0)
      v = lo * std::pow(hi / lo, u(rng_));
    else
      v = lo + (hi - lo) * u(rng_);
    if (p.integer) v = std::round(v);
    return std::clamp(v, p.min, p.max);
  }

  double invalidValue(const ParamSpec& p) {
    switch (rng_() % 4) {
      case 0:
        return std::nan("");
      case 1:
        return p.max + std::max(1.0, std::fabs(p.max));
      case 2:
        return p.min - std::max(1.0, std::fabs(p.min));
      default:
        return p.integer ? std::floor(p.min) + 0.5 : HUGE_VAL;
    }
  }

  void randomParameters(const std::string& lesson) {
    Lesson& l = shell_.current();
    for (const ParamBinding& b : l.bindings()) {
      const auto r = rng_() % 100;
      if (r < 45) {
        const double v = randomValue(*b.spec);
        if (Status s = setParameter(l, b.spec->id, v); !s)
          problem(lesson + ": the valid value " + fmt("%g", v) + " for " + b.spec->id +
                  " was refused: " + s.sentence());
        ++validSet_;
      } else if (r < 60) {
        const double before = b.get();
        const double v = invalidValue(*b.spec);
        if (setParameter(l, b.spec->id, v).ok() || b.get() != before)
          problem(lesson + ": the invalid value " + fmt("%g", v) + " for " + b.spec->id +
                  " was taken");
        ++invalidRefused_;
      }
    }
    frames(3);  // the panels validate what they were given
  }

  void visit(const std::string& id, Clock::time_point start, double total) {
    doing("visiting " + id);
    shell_.selectLesson(id);
    frames(3);
    if (!waitIdle(60)) cancelAndWait(id + " (its first measurement)");
    // Sometimes one of the lesson's presets first, as its chooser applies it.
    if (const std::vector<const Preset*> presets = shell_.plans().presets().of(id);
        !presets.empty() && rng_() % 3 == 0) {
      const std::string name = presets[rng_() % presets.size()]->name;
      if (Status s = shell_.plans().applyPreset(shell_.current(), name); !s)
        problem(id + ": the course's preset \"" + name + "\" was refused: " + s.sentence());
      ++presetsApplied_;
      frames(2);
    }
    randomParameters(id);
    std::vector<std::string> actions = shell_.current().actionIds();
    std::shuffle(actions.begin(), actions.end(), rng_);
    for (const std::string& a : actions) {
      if (secondsSince(start) >= total) return;
      const std::string where = id + " " + a;
      doing("running " + where);
      const long long failedBefore = checkTally().failed;
      if (!shell_.current().startAction(a)) {
        ++refusedActions_;  // the lesson refused (its parameters, no GPU)
        frames(1);
        continue;
      }
      ++actions_;
      frames(1);
      if (rng_() % 4 == 0) {
        frames(static_cast<int>(rng_() % 40));
        cancelAndWait(where);
      } else if (!waitIdle(30)) {
        cancelAndWait(where + " (still running after 30 s)");
      }
      frames(2);
      if (checkTally().failed > failedBefore)
        problem(where + ": a result failed its check (first: " + checkTally().firstFailure + ")");
      if (deviceFaulted()) {
        problem(where + ": the GPU faulted (" + lastStickyError().sentence() + ")");
        return;
      }
    }
    // Pin what was measured, draw the comparison and the plots with the pinned series, and
    // unpin: two at most here, so that what the pins hold (bounded, four runs a lesson) is not
    // taken for a leak by the memory check.
    if (!shell_.current().comparable().empty()) {
      if (shell_.pins().count(id) >= 2) shell_.pins().unpin(id, static_cast<int>(rng_() % 2));
      if (shell_.pins().pin(shell_.current()).ok()) ++pinned_;
      frames(2);
    }
    // Leave nothing running behind: a lesson takes its results only while it is shown.
    if (shell_.current().busy()) cancelAndWait(id + " (leaving it)");
  }

  // The minute's sample already stands for this moment when it is less than 6 s old.
  void sampleUnlessJustTaken(double minute) {
    if (samples_.empty() || minute - samples_.back().minute > 0.1) sample(minute);
  }

  void sample(double minute) {
    // Freed memory back to the system first, so the resident size follows what is in use rather
    // than the allocator's high-water marks.
    malloc_trim(0);
    Sample s;
    s.minute = minute;
    s.rssMiB = rssMiB();
    s.mallocMiB = mallocInUseMiB();
    s.pinnedMiB = static_cast<double>(pinnedHostBytes().load()) / (1 << 20);
    {
      std::map<std::string, double> m = residentByMappingNow();
      s.outsideMallocMiB = m["[heap]"] + m["anonymous"] - s.mallocMiB;
      for (const auto& [name, mib] : m)
        if (name.rfind("/dev/nvidia", 0) == 0) s.driverMappedMiB += mib;
    }
    s.threads = entriesIn("/proc/self/task");
    s.gpuMiB = gpuUsedMiB(gpu_);
    if (s.gpuMiB >= 0) {
      s.gpuHeldMiB = heldDeviceMiB();
      s.gpuFloorMiB = std::min(s.gpuMiB, gpuFloorSinceSample_);
      s.gpuBeyondHeldFloorMiB = std::min(s.gpuMiB - s.gpuHeldMiB, gpuBeyondHeldFloorSinceSample_);
    }
    if (gpu_)
      s.heldBuffersFloor =
          std::min(static_cast<double>(heldDeviceBuffers().load()), heldBuffersFloorSinceSample_);
    gpuFloorSinceSample_ = gpuBeyondHeldFloorSinceSample_ = heldBuffersFloorSinceSample_ = 1e300;
    s.settling = settlingSinceSample_;
    settlingSinceSample_ = !remadeNotYetVisited_.empty();
    s.fds = entriesIn("/proc/self/fd");
    s.frames = static_cast<int>(frameMs_.size());
    if (!frameMs_.empty()) {
      s.frameMedianMs = median(frameMs_);
      s.frameP95Ms = percentile(frameMs_, 0.95);
      s.frameMaxMs = *std::max_element(frameMs_.begin(), frameMs_.end());
    }
    frameMs_.clear();
    const CheckTally t = checkTally();
    s.checksPassed = t.passed;
    s.checksFailed = t.failed;
    samples_.push_back(s);
    std::fprintf(stderr,
                 "soak: %5.1f min  RSS %7.1f MiB  GPU %8.1f MiB  fds %3d  frame median %.2f ms "
                 "p95 %.2f ms  checks %lld/%lld\n",
                 s.minute, s.rssMiB, s.gpuMiB, s.fds, s.frameMedianMs, s.frameP95Ms, s.checksPassed,
                 s.checksPassed + s.checksFailed);
  }

  // Every lesson afresh (the next visit of each builds it again, as the app's start would) and no
  // run pinned (what the pins hold is bounded, two a lesson here, but sized by random parameters,
  // like a lesson's results); then the memory that outlived them, into `s`.
  void readAfresh(Sample& s) {
    doing("making every lesson afresh to read the memory that outlives them");
    shell_.remakeLessons();
    for (const LessonEntry& e : lessonRegistry()) {
      shell_.pins().clear(e.info->id);
      if (o_.lesson.empty() || o_.lesson == e.info->id) remadeNotYetVisited_.insert(e.info->id);
    }
    settlingSinceSample_ = !remadeNotYetVisited_.empty();
    malloc_trim(0);
    s.freshRssMiB = rssMiB();
    s.freshMallocMiB = mallocInUseMiB();
    s.freshGpuMiB = settledGpuUsedMiB(gpu_);
    std::fprintf(stderr,
                 "soak: %5.1f min  with every lesson made afresh: RSS %7.1f MiB  malloc %7.1f MiB  "
                 "GPU %8.1f MiB\n",
                 s.minute, s.freshRssMiB, s.freshMallocMiB, s.freshGpuMiB);
  }

  int report() {
    // Host memory is judged twice: with the lessons as they live (what a lesson or the worker
    // accumulates), and with every lesson afresh at the end against the baseline (what outlives
    // them, without the swing of what they hold for their random sizes).
    const std::optional<double> rssGrowth =
        floorGrowth(samples_, baseline_, [](const Sample& s) { return s.rssMiB; });
    const bool afresh = baselineTaken_ && samples_[baseline_].freshRssMiB >= 0 &&
                        samples_.back().freshRssMiB >= 0 && samples_.size() - 1 > baseline_;
    const double freshRssGrowth =
        afresh ? samples_.back().freshRssMiB - samples_[baseline_].freshRssMiB : 0;
    // The GPU likewise: as the lessons live, beyond what their arrays and images hold (the
    // memory in use itself is shown beside it, not judged: it follows the sizes they were last
    // given) and by how many buffers they hold, and with every lesson afresh.
    std::optional<double> gpuGrowth, gpuInUseGrowth, heldBuffersGrowth;
    if (gpu_) {
      gpuGrowth = floorGrowth(samples_, baseline_ + 1,
                              [](const Sample& s) { return s.gpuBeyondHeldFloorMiB; });
      gpuInUseGrowth =
          floorGrowth(samples_, baseline_ + 1, [](const Sample& s) { return s.gpuFloorMiB; });
      heldBuffersGrowth =
          floorGrowth(samples_, baseline_ + 1, [](const Sample& s) { return s.heldBuffersFloor; });
    }
    const bool freshGpu =
        gpu_ && afresh && samples_[baseline_].freshGpuMiB >= 0 && samples_.back().freshGpuMiB >= 0;
    const double freshGpuGrowth =
        freshGpu ? samples_.back().freshGpuMiB - samples_[baseline_].freshGpuMiB : 0;
    const std::optional<double> fdGrowth =
        floorGrowth(samples_, baseline_, [](const Sample& s) { return double(s.fds); });
    if (rssGrowth > kSoakRssToleranceMiB)
      problem(fmt("host memory grew by %.1f MiB (tolerance %.0f MiB)", *rssGrowth,
                  kSoakRssToleranceMiB));
    if (freshRssGrowth > kSoakRssToleranceMiB)
      problem(fmt("host memory with every lesson made afresh grew by %.1f MiB (tolerance %.0f MiB)",
                  freshRssGrowth, kSoakRssToleranceMiB));
    if (gpuGrowth > kSoakGpuToleranceMiB)
      problem(
          fmt("GPU memory beyond what the app's arrays and images hold grew by %.1f MiB "
              "(tolerance %.0f MiB)",
              *gpuGrowth, kSoakGpuToleranceMiB));
    if (heldBuffersGrowth > kSoakHeldBufferTolerance)
      problem(fmt("the device buffers the app's arrays and images hold grew by %.0f (tolerance %d)",
                  *heldBuffersGrowth, kSoakHeldBufferTolerance));
    if (freshGpuGrowth > kSoakGpuToleranceMiB)
      problem(fmt("GPU memory with every lesson made afresh grew by %.1f MiB (tolerance %.0f MiB)",
                  freshGpuGrowth, kSoakGpuToleranceMiB));
    if (fdGrowth > kSoakFdTolerance)
      problem(fmt("open files grew by %.0f (tolerance %d)", *fdGrowth, kSoakFdTolerance));
    const CheckTally t = checkTally();
    if (t.failed > 0) problem(fmt("%lld checked results were wrong", t.failed));

    const RuntimeInfo rt = queryRuntime();
    std::string md = "### Soak, " + today() + ", " +
                     (gpu_ ? rt.firstDeviceName : std::string("no GPU (CPU references)")) +
                     fmt(", %g minutes, seed %u%s\n\n", o_.minutes, seed_,
                         o_.lesson.empty() ? "" : (", lesson " + o_.lesson).c_str());
    md += "| minute |";
    std::string rule = "| ---: |";
    for (const Column& c : kColumns) {
      md.append(" ").append(c.header).append(" |");
      rule += " ---: |";
    }
    md += "\n" + rule + "\n";
    nlohmann::json j = {{"date", today()},
                        {"device", gpu_ ? rt.firstDeviceName : std::string("none")},
                        {"minutes", o_.minutes},
                        {"seed", seed_}};
    for (size_t i = 0; i < samples_.size(); ++i) {
      const Sample& s = samples_[i];
      md += fmt("| %.1f%s%s |", s.minute, i == baseline_ ? " (baseline)" : "",
                s.settling ? " (settling)" : "");
      nlohmann::json row = {{"minute", s.minute}, {"settling", s.settling}};
      for (const Column& c : kColumns) {
        const double v = c.value(s);
        md.append(" ")
            .append(c.dashWhenNegative && v < 0 ? std::string("-") : fmt(c.format, v))
            .append(" |");
        // Counts stay whole numbers in the JSON.
        row[c.key] = std::string_view(c.format) == "%.0f" && v == std::floor(v)
                         ? nlohmann::json(static_cast<long long>(v))
                         : nlohmann::json(v);
      }
      md += "\n";
      j["samples"].push_back(std::move(row));
    }
    md +=
        fmt("\n%d cycles through every lesson; %d actions run (%d cancelled midway or at 30 s, the "
            "slowest cancel %.2f s), %d refused by a lesson for its parameters; %d valid values "
            "set, %d invalid values refused; %d frames over %.0f s (their stacks are in the "
            "log).\n",
            cycles_, actions_, cancels_, worstCancel_, refusedActions_, validSet_, invalidRefused_,
            stallWatch_.stalls(), kSoakStallSeconds);
    md += fmt("%d of the course's presets applied, %d runs pinned side by side.\n", presetsApplied_,
              pinned_);
    // Each lesson's share of any growth, one line per kind of memory.
    auto perLesson = [&](const std::map<std::string, double>& change, const char* what,
                         const char* format, const char* key) {
      if (change.empty()) return;
      md += std::string(what) + " change over each lesson's visits after the baseline, summed:";
      for (const auto& [id, mib] : change) {
        md += fmt(format, id.c_str(), mib);
        j[key][id] = mib;
      }
      md.back() = '.';
      md += "\n";
    };
    perLesson(lessonRssMiB_, "Host RSS", " %s %+.1f MiB;", "lesson_rss_change_mib");
    perLesson(lessonGpuMiB_, "GPU memory beyond what the app's arrays and images hold",
              " %s %+.0f MiB;", "lesson_gpu_change_mib");
    perLesson(lessonHeldMiB_, "GPU memory the app's arrays and images hold", " %s %+.0f MiB;",
              "lesson_held_change_mib");
    if (baselineTaken_) {
      // Where the resident memory went after the baseline, the largest changes first.
      std::map<std::string, double> change = residentByMappingNow();
      for (const auto& [name, mib] : mappingsAtBaseline_)
        change[name] -= mib;
      std::vector<std::pair<std::string, double>> sorted(change.begin(), change.end());
      std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return std::fabs(a.second) > std::fabs(b.second);
      });
      md += "Resident change since the baseline by mapping, the largest five:";
      for (size_t i = 0; i < sorted.size() && i < 5; ++i) {
        md += fmt(" %s %+.1f MiB;", sorted[i].first.c_str(), sorted[i].second);
        j["mapping_rss_change_mib"][sorted[i].first] = sorted[i].second;
      }
      md.back() = '.';
      md += "\n";
    }
    // A growth and its tolerance, or why there is none to judge.
    auto growth = [](const std::optional<double>& g, const char* format, double tolerance) {
      return g ? fmt(format, *g) + fmt(" (tolerance %g)", tolerance)
               : std::string("not judged (fewer than two readings)");
    };
    md +=
        "Growth from the baseline (the floor of the last third of the samples against the first "
        "third's, leaving out the samples marked settling; the GPU's from its lowest reading "
        "between lessons beyond what the app's arrays and images held, from the sample after "
        "the baseline): host RSS " +
        growth(rssGrowth, "%+.1f MiB", kSoakRssToleranceMiB) + ", " +
        (gpu_ ? "GPU " + growth(gpuGrowth, "%+.1f MiB", kSoakGpuToleranceMiB) +
                    ", device buffers the app holds " +
                    growth(heldBuffersGrowth, "%+.0f", kSoakHeldBufferTolerance)
              : std::string("GPU not read (no device)")) +
        ", open files " + growth(fdGrowth, "%+.0f", kSoakFdTolerance) + ".";
    if (gpu_)
      md += " The GPU memory in use between lessons, the same floors: " +
            (gpuInUseGrowth ? fmt("%+.1f MiB", *gpuInUseGrowth) : std::string("none")) +
            " (not judged: it follows the sizes the lessons were last given).";
    if (!afresh)
      md += " No reading with every lesson made afresh after the baseline.\n";
    else if (freshGpu)
      md +=
          fmt(" With every lesson made afresh, the end against the baseline: host RSS %+.1f MiB, "
              "GPU %+.1f MiB (tolerances %.0f and %.0f).\n",
              freshRssGrowth, freshGpuGrowth, kSoakRssToleranceMiB, kSoakGpuToleranceMiB);
    else
      md +=
          fmt(" With every lesson made afresh, the end against the baseline: host RSS %+.1f MiB "
              "(tolerance %.0f).\n",
              freshRssGrowth, kSoakRssToleranceMiB);
    md += problems_.empty()
              ? std::string("\n**Result: passed.**\n")
              : "\n**Result: FAILED** (" + std::to_string(problems_.size()) + " problems):\n\n";
    for (const std::string& p : problems_)
      md += "- " + p + "\n";
    j["cycles"] = cycles_;
    j["actions"] = actions_;
    j["presets_applied"] = presetsApplied_;
    j["runs_pinned"] = pinned_;
    j["cancels"] = cancels_;
    j["slowest_cancel_s"] = worstCancel_;
    j["stalled_frames"] = stallWatch_.stalls();
    // A growth that could not be judged is left out.
    auto put = [&](const char* key, const std::optional<double>& g) {
      if (g) j[key] = *g;
    };
    put("rss_growth_mib", rssGrowth);
    if (afresh) j["rss_growth_lessons_afresh_mib"] = freshRssGrowth;
    put("gpu_growth_mib", gpuGrowth);  // beyond what the app's arrays and images hold
    put("gpu_in_use_between_lessons_growth_mib", gpuInUseGrowth);
    put("held_device_buffers_growth", heldBuffersGrowth);
    if (freshGpu) j["gpu_growth_lessons_afresh_mib"] = freshGpuGrowth;
    put("fd_growth", fdGrowth);
    j["problems"] = problems_;
    j["passed"] = problems_.empty();
    const bool written = writeOutputs(o_.outDir, "soak", md, j).ok();
    return problems_.empty() && written ? 0 : 1;
  }

  const SoakOptions& o_;
  const Clock::time_point started_ = Clock::now();
  Shell& shell_;
  UiRenderer& renderer_;
  bool gpu_;
  unsigned seed_ = 0;
  std::mt19937 rng_;
  std::vector<double> frameMs_;
  std::vector<Sample> samples_;
  size_t baseline_ = 0;
  bool baselineTaken_ = false;
  std::vector<std::string> problems_;
  int cycles_ = 0, actions_ = 0, cancels_ = 0, refusedActions_ = 0;
  int presetsApplied_ = 0, pinned_ = 0;
  int validSet_ = 0, invalidRefused_ = 0;
  double worstCancel_ = 0;
  std::map<std::string, double> lessonRssMiB_, lessonGpuMiB_, lessonHeldMiB_;
  std::set<std::string> remadeNotYetVisited_;  // made afresh, their first visit since still to come
  double gpuFloorSinceSample_ = 1e300, gpuBeyondHeldFloorSinceSample_ = 1e300;
  double heldBuffersFloorSinceSample_ = 1e300;
  bool settlingSinceSample_ = false;
  std::map<std::string, double> mappingsAtBaseline_;
  // A frame over 2 s is a stall a class would see: its stack goes to stderr.
  StallWatch stallWatch_{kSoakStallSeconds};
};

}  // namespace

int runSoak(const SoakOptions& o) {
  const RuntimeInfo rt = queryRuntime();
  HeadlessContext gl;  // declared first: destroyed after everything that uses GL
  if (Status s = gl.create(rt.hasDevice() ? 0 : -1); !s) return fail(s);
  Settings settings;  // never the user's saved settings
  settings.lesson = lessonRegistry().front().info->id;
  Shell shell(lessonRegistry(), settings, rt, gl.description(), /*headless=*/true);
  UiRenderer renderer(shell, settings);
  if (Status s = renderer.init(nullptr); !s) return fail(s);
  Framebuffer fb;
  if (Status s = fb.resize(1280, 800); !s) return fail(s);
  fb.bind();
  Soak soak(o, shell, renderer, rt.hasDevice());
  const int code = soak.run();
  Framebuffer::unbind();
  return code;
}

}  // namespace cudalab
