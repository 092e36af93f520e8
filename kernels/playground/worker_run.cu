// The worker's run: load the learner's compiled kernel, make the inputs, launch it as the learner
// chose, time it, check every element against the CPU reference, and time the built-in lessons'
// kernels and the library on the same problem. Runs only inside `cudalab worker`.
//
// This file: the helpers, then the run's phases but the checks (worker_run_internal.cuh has the
// index); worker_checks.cu: verify and compare, one function per kind of exercise.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <chrono>
#include <cstring>

#include "common/format.hpp"
#include "common/measurement.hpp"
#include "playground/compile.hpp"
#include "playground/worker_run_internal.cuh"

namespace cudalab::playground {
namespace detail {

// ---------------------------------------------------------------------------------------------
// [SECTION] Helpers
// ---------------------------------------------------------------------------------------------

namespace {

__global__ void fill32(std::uint32_t* p, long long n, std::uint32_t v) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    p[i] = v;
}
__global__ void fill64(std::uint64_t* p, long long n, std::uint64_t v) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    p[i] = v;
}

}  // namespace

Status poison(void* p, long long words, bool wide, cudaStream_t s, std::uint32_t v32) {
  if (words <= 0) return {};
  if (wide)
    fill64<<<1024, 256, 0, s>>>(static_cast<std::uint64_t*>(p), words, kPoison64);
  else
    fill32<<<1024, 256, 0, s>>>(static_cast<std::uint32_t*>(p), words, v32);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

bool isPoison(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b == kPoison32;
}
bool isPoison(int v) {
  return static_cast<std::uint32_t>(v) == kPoison32;
}
bool isPoison(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  return b == kPoison64;
}

LaunchError explain(cudaError_t e, const Launch& l, const KernelResources& k, bool atLaunch) {
  LaunchError r;
  r.sticky = isStickyCudaError(e);
  const std::string name = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  const long long threads = l.block.count();
  switch (e) {
    case cudaErrorInvalidConfiguration:
      r.sentence = "The GPU refused the launch configuration (" + name + "): a block of " +
                   thousands(threads) + " threads or a grid of " + thousands(l.grid.x) + " x " +
                   thousands(l.grid.y) + " x " + thousands(l.grid.z) + " blocks is over a limit.";
      break;
    case cudaErrorLaunchOutOfResources:
      r.sentence = "The GPU cannot run blocks of " + thousands(threads) +
                   " threads of this kernel (" + name + "): it uses " +
                   std::to_string(k.registers) + " registers per thread, so a block needs " +
                   thousands(threads * k.registers) +
                   " registers, and this kernel can be launched with at most " +
                   thousands(k.maxThreadsPerBlock) +
                   " threads per block. Use smaller blocks, or fewer registers.";
      break;
    case cudaErrorIllegalAddress:
    case cudaErrorInvalidAddressSpace:
      r.sentence = "The kernel read or wrote an address outside its arrays (" + name +
                   "). Usually an index past the end with no guard, or a shared array smaller "
                   "than the block. Turn on \"Check accesses\" to see the line and the thread.";
      break;
    case cudaErrorMisalignedAddress:
      r.sentence =
          "The kernel accessed memory at an address not aligned for its type (" + name + ").";
      break;
    case cudaErrorLaunchFailure:
      r.sentence = "The kernel stopped with an exception (" + name +
                   "): __trap() was called, or the hardware raised an error while it ran.";
      break;
    case cudaErrorAssert:
      r.sentence = "An assert() in the kernel failed (" + name +
                   "); its message is in the "
                   "kernel's output below.";
      break;
    case cudaErrorLaunchTimeout:
      r.sentence = "The kernel ran too long and the driver stopped it (" + name + ").";
      break;
    default:
      r.sentence =
          std::string(atLaunch ? "The launch failed" : "The kernel failed") + " (" + name + ").";
  }
  return r;
}

void note(RunReport& r, long long index, double expected, double got, bool unwritten) {
  if (static_cast<int>(r.first.size()) < kMaxMismatches)
    r.first.push_back({index, expected, got, unwritten});
}

double medianOf(std::vector<double> v) {
  PhaseStats st;
  st.samplesMs = std::move(v);
  summarize(st);
  return st.medianMs;
}

// The learner's kernel, loaded, kept while the same image comes again: a learner re-running the
// same kernel pays nothing.
struct Loaded {
  cudaLibrary_t lib = nullptr;
  std::string image;
  ~Loaded() {
    if (lib) (void)cudaLibraryUnload(lib);
  }
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Run: load
// ---------------------------------------------------------------------------------------------

bool Run::load(const std::vector<std::string>& entries, const std::string& image) {
  static Loaded loaded;
  if (!loaded.lib || loaded.image != image) {
    if (loaded.lib) (void)cudaLibraryUnload(loaded.lib);
    loaded.lib = nullptr;
    loaded.image.clear();
    if (cudaError_t err = cudaLibraryLoadData(&loaded.lib, image.data(), nullptr, nullptr, 0,
                                              nullptr, nullptr, 0);
        err != cudaSuccess) {
      out_.error = std::string("The GPU could not load the compiled kernel (") +
                   cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ").";
      out_.sticky = isStickyCudaError(err);
      return false;
    }
    loaded.image = image;
  }
  image_ = &loaded.image;
  for (const std::string& name : entries) {
    cudaKernel_t k = nullptr;
    if (cudaError_t err = cudaLibraryGetKernel(&k, loaded.lib, name.c_str()); err != cudaSuccess) {
      out_.error = "The compiled program has no kernel named \"" + name + "\" (" +
                   cudaGetErrorName(err) + ").";
      return false;
    }
    kernels_.push_back(k);
  }
  return true;
}

void Run::readResources() {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(kernels_[0])) == cudaSuccess) {
    r_.resources.registers = a.numRegs;
    r_.resources.staticShared = static_cast<long long>(a.sharedSizeBytes);
    r_.resources.localBytes = static_cast<long long>(a.localSizeBytes);
    r_.resources.constBytes = static_cast<long long>(a.constSizeBytes);
    r_.resources.maxThreadsPerBlock = a.maxThreadsPerBlock;
  }
  int perSM = 0;
  if (l_.block.count() <= r_.resources.maxThreadsPerBlock &&
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &perSM, reinterpret_cast<const void*>(kernels_[0]), static_cast<int>(l_.block.count()),
          0) == cudaSuccess)
    r_.resources.blocksPerSM = perSM;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Run: check the kernel's parameters
// ---------------------------------------------------------------------------------------------

// The kernel's parameters must be the ones the app passes (extern "C" keeps no types in the name):
// launching with others would hand it garbage, or read past the argument list. The app compares
// the whole list from the PTX before it sends a run (WorkerClient::run); here each expected
// parameter's size is confirmed on the loaded kernel itself.
bool Run::checkParameters(const std::vector<std::string>& entries) {
  const std::vector<int> want = expectedParamSizes(e_);
  for (size_t k = 0; k < kernels_.size(); ++k) {
    for (size_t i = 0; i < want.size(); ++i) {
      size_t offset = 0, size = 0;
      const cudaError_t err =
          cudaFuncGetParamInfo(reinterpret_cast<const void*>(kernels_[k]), i, &offset, &size);
      if (err != cudaSuccess || size != static_cast<size_t>(want[i])) {
        (void)cudaGetLastError();
        out_.error = "The kernel " + entries[k] +
                     " does not take the parameters the app passes: " + signatureText(e_) +
                     ". Keep the signature (the same number, order and sizes).";
        return false;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Run: launch
// ---------------------------------------------------------------------------------------------

Status Run::plainLaunch(cudaKernel_t k, void** args) {
  cudaError_t err = cudaLaunchKernel(reinterpret_cast<const void*>(k), grid_, block_, args, 0, st_);
  if (err == cudaSuccess) return {};
  launchError_ = explain(err, l_, r_.resources, true);
  return Status::cuda(err, cudaGetErrorName(err), cudaGetErrorString(err), "learner's launch", "",
                      0, launchError_.sticky);
}

bool Run::timeInto(Buffer<float>& out, void** args) {
  float* po = out.ptr();
  const Status s = timeRuns(
      p_.runs, st_, [&] { return poison(po, out.total(), false, st_); },
      [&] { return launch(kernels_[0], args); }, r_.kernelMs);
  if (!s) return runFailed(s);
  phase_("checking");
  if (Status d = out.download(st_); !d) return runFailed(d);
  return true;
}

// Launches the learner's kernel; a failure becomes the teaching sentence.
Status Run::launch(cudaKernel_t k, void** args) {
  // The learner's time limit starts with the first launch.
  if (!launched_) phase_("launching");
  launched_ = true;
  // The line counters and PC sampling each read one kernel's first launch (p_.lineKernel), and
  // never both in one process: CUPTI's SASS metrics give records once per process, and no PC
  // sample came back after them (an H200, CUDA 13.0). The client asks for each kernel and each
  // reading in a run of its own (WorkerClient::run).
  const bool chosen = p_.lineKernel >= 0 && std::size_t(p_.lineKernel) < kernels_.size() &&
                      kernels_[std::size_t(p_.lineKernel)] == k;
  if (chosen && p_.stalls && !p_.lineCounters && !sampled_) return sampledLaunch(k, args);
  const bool probed = std::find(probed_.begin(), probed_.end(), k) != probed_.end();
  if (!p_.lineCounters || r_.linesProblem.size() || probed || !chosen) return plainLaunch(k, args);
  probed_.push_back(k);
  Status launchStatus;
  Result<std::vector<counters::SassRecord>> recs = counters::profileSass([&] {
    launchStatus = plainLaunch(k, args);
    return launchStatus;
  });
  if (!launchStatus) return launchStatus;
  if (recs) {
    sassRecords_.insert(sassRecords_.end(), recs->begin(), recs->end());
    return {};
  }
  // A fault of the kernel itself is the run's failure; anything else only the lines'.
  if (recs.status().cudaCode() != 0) return recs.status();
  r_.linesProblem = recs.status().sentence();
  return {};
}

Status Run::sampledLaunch(cudaKernel_t k, void** args) {
  sampled_ = true;
  Status launchStatus;
  bool ran = false;
  Result<counters::StallSamples> s = counters::samplePcs([&] {
    ran = true;
    launchStatus = plainLaunch(k, args);
    return launchStatus;
  });
  // Sampling that could not start still launches: the run goes on without samples.
  if (!ran) launchStatus = plainLaunch(k, args);
  if (!launchStatus) return launchStatus;
  if (!s) {
    if (s.status().cudaCode() != 0) return s.status();
    r_.stallsProblem = s.status().sentence();
    return {};
  }
  if (s->records.empty()) {
    r_.stallsProblem =
        s->bufferFull
            ? N_("PC sampling took no sample of your kernel: the GPU's sample buffer filled up.")
            : N_("PC sampling took no sample of your kernel: it may end before the first sample "
                 "(every 512 cycles per scheduler); a larger N runs it longer.");
    return {};
  }
  r_.stallReasons = s->reasons;
  // Each instruction's line as the line counters find it (CUPTI's own correlation).
  for (counters::StallRecord& rec : s->records) {
    Result<counters::SourcePlace> place =
        counters::sourcePlace(*image_, rec.function, rec.pcOffset);
    rec.line = place ? counters::programLine(*place, kProgramName) : 0;
  }
  r_.stalls.insert(r_.stalls.end(), s->records.begin(), s->records.end());
  r_.stallSamples += s->totalSamples;
  r_.stallSamplesDropped += s->droppedSamples;
  return {};
}

bool Run::fail(const Status& s) {
  out_.error = s.sentence();
  out_.sticky = s.sticky();
  return false;
}

bool Run::runFailed(const Status& s) {
  if (!launchError_.sentence.empty()) {
    out_.error = launchError_.sentence;
    out_.sticky = launchError_.sticky;
    return false;
  }
  if (s.cudaCode() != 0) {
    const LaunchError le = explain(static_cast<cudaError_t>(s.cudaCode()), l_, r_.resources, false);
    out_.error = le.sentence;
    out_.sticky = le.sticky || s.sticky();
    return false;
  }
  return fail(s);
}

void Run::failedComparison(const char* label, const Status& why) {
  Comparison c{label, 0, false};
  c.failure = Phrase::of(why);
  r_.comparisons.push_back(std::move(c));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Run: verdict
// ---------------------------------------------------------------------------------------------

void Run::readLineCounters() {
  r_.lines =
      counters::countersByLine(sassRecords_, kProgramName, [&](const counters::SassRecord& rec) {
        Result<counters::SourcePlace> place =
            counters::sourcePlace(*image_, rec.function, rec.pcOffset);
        return place ? *place : counters::SourcePlace{};
      });
  if (r_.lines.empty()) r_.linesProblem = N_("The profiler saw no instruction of your kernel.");
  std::map<std::pair<std::string, std::uint64_t>, counters::SassRecord> byInstruction;
  for (const counters::SassRecord& rec : sassRecords_) {
    counters::SassRecord& sum = byInstruction[{rec.function, rec.pcOffset}];
    sum.function = rec.function;
    sum.pcOffset = rec.pcOffset;
    for (int m = 0; m < int(counters::SassMetric::Count); ++m)
      sum.values[m] += rec.values[m];
  }
  for (auto& [key, rec] : byInstruction)
    r_.instructions.push_back(std::move(rec));
}

void Run::verdict() {
  RunReport& r = r_;
  r.medianMs = medianOf(r.kernelMs);
  r.ok = r.wrong == 0 && r.pastEnd == 0 && r.beforeStart == 0 && r.checked > 0;
  std::string verdict;
  if (r.ok)
    verdict = "Correct: every one of " + thousands(r.checked) + " checked values is right.";
  else {
    std::vector<std::string> parts;
    if (r.unwritten) parts.push_back(thousands(r.unwritten) + " never written");
    if (r.wrong - r.unwritten > 0) parts.push_back(thousands(r.wrong - r.unwritten) + " wrong");
    if (r.pastEnd) parts.push_back(thousands(r.pastEnd) + " writes past the end");
    if (r.beforeStart) parts.push_back(thousands(r.beforeStart) + " writes before the start");
    verdict = "Not correct: ";
    for (size_t i = 0; i < parts.size(); ++i)
      verdict += (i ? ", " : "") + parts[i];
    verdict += " (of " + thousands(r.checked) + " checked).";
  }
  r.summary = r.summary.empty() ? verdict : verdict + " " + r.summary + ".";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Run: the phases in order
// ---------------------------------------------------------------------------------------------

RunOutcome Run::go(const std::vector<std::string>& entries, const std::string& image) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!load(entries, image)) return out_;
  l_ = launchFor(e_, p_);
  readResources();
  // Loading is lazy (the driver loads a function when it is first used): the attribute queries
  // above are part of it.
  r_.loadMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r_.bytes = exerciseBytes(e_, p_);
  r_.flops = exerciseFlops(e_, p_);
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) r_.device = prop.name;
  if (!checkParameters(entries)) return out_;

  if (Status s = stream_.create(); !s) {
    fail(s);
    return out_;
  }
  st_ = stream_.get();
  threads_ = l_.grid.count() * l_.block.count();
  grid_ = dim3(static_cast<unsigned>(l_.grid.x), static_cast<unsigned>(l_.grid.y),
               static_cast<unsigned>(l_.grid.z));
  block_ = dim3(static_cast<unsigned>(l_.block.x), static_cast<unsigned>(l_.block.y),
                static_cast<unsigned>(l_.block.z));
  in_ = makeInputs(e_, p_);
  n_ = static_cast<int>(p_.n);

  bool ran = false;
  switch (e_.kind) {
    case Kind::Map:
      ran = runMap();
      break;
    case Kind::Counter:
      ran = runCounter();
      break;
    case Kind::Histogram:
      ran = runHistogram();
      break;
    case Kind::Elementwise:
      ran = runElementwise();
      break;
    case Kind::Matmul:
      ran = runMatmul();
      break;
    case Kind::Reduce:
      ran = runReduce();
      break;
    case Kind::Transpose:
      ran = runTranspose();
      break;
    case Kind::Softmax:
      ran = runSoftmax();
      break;
    case Kind::Wmma:
      ran = runWmma();
      break;
  }
  if (!ran) return out_;
  if (p_.lineCounters && r_.linesProblem.empty()) readLineCounters();
  verdict();
  return out_;
}

}  // namespace detail

RunOutcome WorkerRunner::run(const Exercise& e, const RunParams& p,
                             const std::vector<std::string>& entries, const std::string& image,
                             const std::function<void(const char*)>& phase) {
  return detail::Run(e, p, phase).go(entries, image);
}

}  // namespace cudalab::playground
