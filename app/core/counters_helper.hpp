// Reading the GPU's counters in a helper process, `cudalab counters-helper`.
//
// Why not in the app's process: each time CUPTI's Range Profiler is enabled and disabled, the
// driver keeps about 78 KiB of host memory it never gives back (measured on an H100, driver 580;
// docs/RELIABILITY.md). A ladder of ten steps leaves 0.8 MiB, and a 30-minute soak of every lesson
// grew by 206 MiB, most of it there. Keeping the profiler enabled between readings crashed the next
// reading inside CUPTI. A process that reads the counters and ends takes that memory with it; it
// also keeps a fault under the profiler, or a hung reading, out of the app (cancel ends it).
//
// A panel registers, once, how the helper measures its job, by name and with a parameter struct
// that is trivially copyable (it crosses the pipe as bytes: both ends are the same executable):
//
//   const bool kJob = registerCountersJob<MatmulParams>(
//       "matmul", [](const MatmulParams& p, const std::atomic<bool>* cancel,
//                    const CountersProgress& progress) { return measureCounters(p, ...); });
//
// and its job (on a worker thread) asks the helper for it:
//
//   return measureInHelper("matmul", p, c.cancelFlag(), progress);
//
// The helper reads one request, runs the job, sends progress lines and the readings, and exits.
#pragma once

#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.hpp"
#include "counters/counters.hpp"

namespace cudalab {

using CountersReadings = std::vector<counters::StepReading>;
using CountersProgress = std::function<void(float fraction, const std::string& what)>;

// ---------------------------------------------------------------------------------------------
// [SECTION] Jobs: what the helper can measure
// ---------------------------------------------------------------------------------------------

using CountersJobBytes = std::function<Result<CountersReadings>(
    std::string_view params, const std::atomic<bool>* cancel, const CountersProgress& progress)>;
// Registers `job` under `name` (at static initialisation); its requests carry `paramBytes` bytes.
bool registerCountersJobBytes(const char* name, std::size_t paramBytes, CountersJobBytes job);

template <class P>
bool registerCountersJob(const char* name,
                         std::function<Result<CountersReadings>(const P&, const std::atomic<bool>*,
                                                                const CountersProgress&)>
                             job) {
  static_assert(std::is_trivially_copyable_v<P>, "the parameters cross a pipe as bytes");
  return registerCountersJobBytes(
      name, sizeof(P),
      [job = std::move(job)](std::string_view bytes, const std::atomic<bool>* cancel,
                             const CountersProgress& progress) -> Result<CountersReadings> {
        P p;
        std::memcpy(static_cast<void*>(&p), bytes.data(), sizeof(P));
        return job(p, cancel, progress);
      });
}

// A ladder's job: `measure` (the ladder's measureCounters(params, steps, cancel, progress)) over
// `steps`, every step of the ladder:
//   const bool kJob = registerLadderCountersJob<MatmulParams>("matmul", &measureCounters,
//                                                             allStepIds());
template <class P, class Measure, class Steps>
bool registerLadderCountersJob(const char* name, Measure measure, const Steps& steps) {
  return registerCountersJob<P>(
      name, [measure, steps = std::vector(std::begin(steps), std::end(steps))](
                const P& p, const std::atomic<bool>* cancel, const CountersProgress& progress) {
        return measure(p, steps, cancel, progress);
      });
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The app's side
// ---------------------------------------------------------------------------------------------

// Starts `executable counters-helper` (by default the running cudalab, or the binary that
// CUDALAB_BINARY names: a test process that draws the lessons is not cudalab itself),
// has it run the job `name` on `params`, forwards its progress, and returns its readings or the
// sentence saying why there are none (the job's own, or what happened to the helper). Setting
// `*cancel` ends the helper at once.
Result<CountersReadings> measureInHelperBytes(const char* name, std::string params,
                                              const std::atomic<bool>* cancel,
                                              const CountersProgress& progress,
                                              const std::string& executable = {});

template <class P>
Result<CountersReadings> measureInHelper(const char* name, const P& params,
                                         const std::atomic<bool>* cancel,
                                         const CountersProgress& progress,
                                         const std::string& executable = {}) {
  static_assert(std::is_trivially_copyable_v<P>, "the parameters cross a pipe as bytes");
  return measureInHelperBytes(name, std::string(reinterpret_cast<const char*>(&params), sizeof(P)),
                              cancel, progress, executable);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The helper's side (commands/counters_helper.hpp: `cudalab counters-helper`)
// ---------------------------------------------------------------------------------------------

// The job registered under `name` and its parameters' size, or nullptr.
const CountersJobBytes* findCountersJob(const std::string& name, std::size_t* paramBytes);

// Readings as JSON and back (the reply's body).
nlohmann::json toJson(const counters::StepReading& r);
Result<counters::StepReading> stepReadingFromJson(const nlohmann::json& j);

}  // namespace cudalab
