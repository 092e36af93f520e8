// The worker's run: load the learner's compiled kernel, make the inputs, launch it as the learner
// chose, time it, check every element against the CPU reference, and time the built-in lessons'
// kernels and the library on the same problem. Runs only inside `cudalab worker`.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <cstring>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_transform.cuh>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/format.hpp"
#include "common/measurement.hpp"
#include "common/translatable.hpp"
#include "launch_config/launch_config.hpp"
#include "matmul/matmul.hpp"
#include "playground/compile.hpp"
#include "playground/worker_run.hpp"
#include "reduction/reduction.hpp"

namespace cudalab::playground {

namespace {

// The poison: a quiet NaN with a payload no arithmetic produces (the GPU's own NaN is
// 0x7FFFFFFF), so "never written" and "computed NaN" are told apart.
constexpr std::uint32_t kPoison32 = 0x7FC0DEADu;
constexpr std::uint64_t kPoison64 = 0x7FF8DEAD7FC0DEADull;

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

Status poison(void* p, long long words, bool wide, cudaStream_t s, std::uint32_t v32 = kPoison32) {
  if (words <= 0) return {};
  if (wide)
    fill64<<<1024, 256, 0, s>>>(static_cast<std::uint64_t*>(p), words, kPoison64);
  else
    fill32<<<1024, 256, 0, s>>>(static_cast<std::uint32_t*>(p), words, v32);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

// The library's versions of the element-wise maps.
struct Twice {
  __device__ float operator()(float x) const { return 2.0f * x; }
};
struct Times {
  __device__ float operator()(float x, float y) const { return x * y; }
};
struct Hypot {
  __device__ float operator()(float x, float y) const { return hypotf(x, y); }
};

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

// A CUDA error from the learner's launch, as a sentence for the learner. Sticky errors leave the
// context unusable: the worker reports them and exits.
struct LaunchError {
  std::string sentence;
  bool sticky = false;
};

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

// One buffer of the run: `count` elements with a guard zone before them (kFront elements) and
// after them (`guard`), all poisoned, on the device; ptr() is element 0. A kernel that writes
// before its array (a negative index) or past its end writes into memory the app watches.
constexpr long long kFront = 4096;

template <class T>
struct Buffer {
  DeviceArray<T> dev;
  std::vector<T> host;   // after download(): the elements, then the guard zone after them
  std::vector<T> front;  // after download(): the guard zone before them
  long long count = 0, guard = 0;
  Status allocate(long long n, long long g, cudaStream_t s) {
    count = n;
    guard = g;
    CUDALAB_TRY(dev.allocate(static_cast<size_t>(kFront + n + g)));
    return poison(dev.get(), kFront + n + g, sizeof(T) == 8, s);
  }
  T* ptr() const { return dev.get() + kFront; }
  long long total() const { return count + guard; }  // from ptr(): what a run may poison
  Status upload(const std::vector<T>& v, cudaStream_t s) {
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(ptr(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    return {};
  }
  Status download(cudaStream_t s) {
    host.resize(static_cast<size_t>(total()));
    front.resize(static_cast<size_t>(kFront));
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(host.data(), ptr(), host.size() * sizeof(T), cudaMemcpyDeviceToHost, s));
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(front.data(), dev.get(), front.size() * sizeof(T),
                                     cudaMemcpyDeviceToHost, s));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(s));
    return {};
  }
};

// Cells of a 1D output: `count` elements in at most kMaxCells cells, each the worst of its
// elements (Unwritten over Wrong over Correct).
struct Cells {
  std::vector<Cell> cells;
  long long span = 1;
  void init(long long count) {
    span = std::max<long long>(1, (count + kMaxCells - 1) / kMaxCells);
    cells.assign(static_cast<size_t>((count + span - 1) / span), Cell::Correct);
  }
  // Hands the cells to the report, laid out as a square.
  void moveInto(RunReport& r) {
    r.cells = std::move(cells);
    r.cellSpan = span;
    r.cellsWide = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(r.cells.size()))));
  }
  void mark(long long i, Cell c) {
    Cell& cell = cells[static_cast<size_t>(i / span)];
    auto rank = [](Cell x) {
      return x == Cell::Unwritten   ? 3
             : x == Cell::Wrong     ? 2
             : x == Cell::PastEnd   ? 4
             : x == Cell::Unchecked ? 1
                                    : 0;
    };
    if (rank(c) > rank(cell)) cell = c;
  }
};

// The guard zone: every element that no longer holds the poison was written past the end.
template <class T>
void checkGuard(const Buffer<T>& b, RunReport& r) {
  Cells g;
  g.init(b.guard);
  for (long long i = 0; i < b.guard; ++i) {
    if (!isPoison(b.host[static_cast<size_t>(b.count + i)])) {
      ++r.pastEnd;
      g.mark(i, Cell::PastEnd);
    }
  }
  r.guardCells = std::move(g.cells);
  r.guardSpan = g.span;
  for (const T v : b.front)
    if (!isPoison(v)) ++r.beforeStart;
}

void note(RunReport& r, long long index, double expected, double got, bool unwritten) {
  if (static_cast<int>(r.first.size()) < kMaxMismatches)
    r.first.push_back({index, expected, got, unwritten});
}

// Times a launch function: 2 warm-ups, then `runs` timed launches, each preceded by `reset`
// (poison or zero the output, outside the timed region). Stops at the first failure.
template <class Reset, class Go>
Status timeRuns(int runs, cudaStream_t s, Reset reset, Go go, std::vector<double>& ms,
                const std::function<void(int)>& afterRun = {}) {
  Event a, b;
  CUDALAB_TRY(a.create());
  CUDALAB_TRY(b.create());
  for (int i = -2; i < runs; ++i) {
    CUDALAB_TRY(reset());
    CUDALAB_CUDA_TRY(cudaEventRecord(a.get(), s));
    CUDALAB_TRY(go());
    CUDALAB_CUDA_TRY(cudaEventRecord(b.get(), s));
    CUDALAB_CUDA_TRY(cudaEventSynchronize(b.get()));
    if (i >= 0) {
      float t = 0;
      CUDALAB_CUDA_TRY(cudaEventElapsedTime(&t, a.get(), b.get()));
      ms.push_back(t);
      if (afterRun) afterRun(i);
    }
  }
  return {};
}

double medianOf(std::vector<double> v) {
  PhaseStats st;
  st.samplesMs = std::move(v);
  summarize(st);
  return st.medianMs;
}

// The learner's kernel, loaded.
struct Loaded {
  cudaLibrary_t lib = nullptr;
  std::string image;
  ~Loaded() {
    if (lib) (void)cudaLibraryUnload(lib);
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------

RunOutcome WorkerRunner::run(const Exercise& e, const RunParams& p,
                             const std::vector<std::string>& entries, const std::string& image,
                             const std::function<void(const char*)>& phase) {
  RunOutcome out;
  auto fail = [&](const Status& s) {
    out.error = s.sentence();
    out.sticky = s.sticky();
    return out;
  };
  const auto t0 = std::chrono::steady_clock::now();
  // Load once per compiled image: a learner re-running the same kernel pays nothing.
  static Loaded loaded;
  if (!loaded.lib || loaded.image != image) {
    if (loaded.lib) (void)cudaLibraryUnload(loaded.lib);
    loaded.lib = nullptr;
    loaded.image.clear();
    if (cudaError_t err = cudaLibraryLoadData(&loaded.lib, image.data(), nullptr, nullptr, 0,
                                              nullptr, nullptr, 0);
        err != cudaSuccess) {
      out.error = std::string("The GPU could not load the compiled kernel (") +
                  cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ").";
      out.sticky = isStickyCudaError(err);
      return out;
    }
    loaded.image = image;
  }
  std::vector<cudaKernel_t> kernels;
  for (const std::string& name : entries) {
    cudaKernel_t k = nullptr;
    if (cudaError_t err = cudaLibraryGetKernel(&k, loaded.lib, name.c_str()); err != cudaSuccess) {
      out.error = "The compiled program has no kernel named \"" + name + "\" (" +
                  cudaGetErrorName(err) + ").";
      return out;
    }
    kernels.push_back(k);
  }
  RunReport& r = out.report;
  const Launch l = launchFor(e, p);
  {
    cudaFuncAttributes a{};
    if (cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(kernels[0])) == cudaSuccess) {
      r.resources.registers = a.numRegs;
      r.resources.staticShared = static_cast<long long>(a.sharedSizeBytes);
      r.resources.localBytes = static_cast<long long>(a.localSizeBytes);
      r.resources.constBytes = static_cast<long long>(a.constSizeBytes);
      r.resources.maxThreadsPerBlock = a.maxThreadsPerBlock;
    }
    int perSM = 0;
    if (l.block.count() <= r.resources.maxThreadsPerBlock &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &perSM, reinterpret_cast<const void*>(kernels[0]), static_cast<int>(l.block.count()),
            0) == cudaSuccess)
      r.resources.blocksPerSM = perSM;
  }
  // Loading is lazy (the driver loads a function when it is first used): the attribute queries
  // above are part of it.
  r.loadMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.bytes = exerciseBytes(e, p);
  r.flops = exerciseFlops(e, p);
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) r.device = prop.name;

  // The kernel's parameters must be the ones the app passes (extern "C" keeps no types in the
  // name): launching with others would hand it garbage, or read past the argument list. The app
  // compares the whole list from the PTX before it sends a run (WorkerClient::run); here each
  // expected parameter's size is confirmed on the loaded kernel itself.
  {
    const std::vector<int> want = expectedParamSizes(e);
    for (size_t k = 0; k < kernels.size(); ++k) {
      for (size_t i = 0; i < want.size(); ++i) {
        size_t offset = 0, size = 0;
        const cudaError_t err =
            cudaFuncGetParamInfo(reinterpret_cast<const void*>(kernels[k]), i, &offset, &size);
        if (err != cudaSuccess || size != static_cast<size_t>(want[i])) {
          (void)cudaGetLastError();
          out.error = "The kernel " + entries[k] +
                      " does not take the parameters the app passes: " + signatureText(e) +
                      ". Keep the signature (the same number, order and sizes).";
          return out;
        }
      }
    }
  }

  StreamGuard stream;
  if (Status s = stream.create(); !s) return fail(s);
  cudaStream_t st = stream.get();
  const long long threads = l.grid.count() * l.block.count();
  const dim3 grid(static_cast<unsigned>(l.grid.x), static_cast<unsigned>(l.grid.y),
                  static_cast<unsigned>(l.grid.z));
  const dim3 block(static_cast<unsigned>(l.block.x), static_cast<unsigned>(l.block.y),
                   static_cast<unsigned>(l.block.z));
  // Launches the learner's kernel; a failure becomes the teaching sentence.
  LaunchError launchError;
  bool launched = false;
  // Counters per line: the first (untimed, warm-up) launch of each of the learner's kernels runs
  // under CUPTI's SASS metrics.
  std::vector<counters::SassRecord> sassRecords;
  std::vector<cudaKernel_t> probed;
  auto plainLaunch = [&](cudaKernel_t k, void** args) -> Status {
    cudaError_t err = cudaLaunchKernel(reinterpret_cast<const void*>(k), grid, block, args, 0, st);
    if (err == cudaSuccess) return {};
    launchError = explain(err, l, r.resources, true);
    return Status::cuda(err, cudaGetErrorName(err), cudaGetErrorString(err), "learner's launch", "",
                        0, launchError.sticky);
  };
  auto launch = [&](cudaKernel_t k, void** args) -> Status {
    // The learner's time limit starts with the first launch.
    if (!launched) phase("launching");
    launched = true;
    if (!p.lineCounters || r.linesProblem.size() ||
        std::find(probed.begin(), probed.end(), k) != probed.end())
      return plainLaunch(k, args);
    probed.push_back(k);
    Status launchStatus;
    Result<std::vector<counters::SassRecord>> recs = counters::profileSass([&] {
      launchStatus = plainLaunch(k, args);
      return launchStatus;
    });
    if (!launchStatus) return launchStatus;
    if (recs) {
      sassRecords.insert(sassRecords.end(), recs->begin(), recs->end());
      return {};
    }
    // A fault of the kernel itself is the run's failure; anything else only the lines'.
    if (recs.status().cudaCode() != 0) return recs.status();
    r.linesProblem = recs.status().sentence();
    return {};
  };
  auto runFailed = [&](const Status& s) {
    if (!launchError.sentence.empty()) {
      out.error = launchError.sentence;
      out.sticky = launchError.sticky;
      return out;
    }
    if (s.cudaCode() != 0) {
      const LaunchError le = explain(static_cast<cudaError_t>(s.cudaCode()), l, r.resources, false);
      out.error = le.sentence;
      out.sticky = le.sticky || s.sticky();
      return out;
    }
    return fail(s);
  };

  // A comparison that cannot run (memory, a library error) is reported in its row; the
  // learner's verdict stands.
  auto failedComparison = [&](const char* label, const Status& why) {
    Comparison c{label, 0, false};
    c.failure = Phrase::of(why);
    r.comparisons.push_back(std::move(c));
  };

  const Inputs in = makeInputs(e, p);
  const int n = static_cast<int>(p.n);
  Status s;

  switch (e.kind) {
    case Kind::Map: {
      Buffer<float> a, b, c;
      const long long guard = guardElements(p.n, threads);
      if (!(s = a.allocate(p.n, guard, st)) || !(s = c.allocate(p.n, guard, st))) return fail(s);
      if (e.op != MapOp::Double && !(s = b.allocate(p.n, guard, st))) return fail(s);
      if (!(s = a.upload(in.in0, st))) return fail(s);
      if (e.op != MapOp::Double && !(s = b.upload(in.in1, st))) return fail(s);
      float* pa = a.ptr();
      float* pb = b.ptr();
      float* pc = c.ptr();
      std::vector<void*> args;
      for (Arg arg : e.args) {
        switch (arg) {
          case Arg::In0:
            args.push_back(&pa);
            break;
          case Arg::In1:
            args.push_back(&pb);
            break;
          case Arg::Out:
            args.push_back(&pc);
            break;
          default:
            args.push_back(const_cast<int*>(&n));
            break;
        }
      }
      s = timeRuns(
          p.runs, st, [&] { return poison(pc, c.total(), false, st); },
          [&] { return launch(kernels[0], args.data()); }, r.kernelMs);
      if (!s) return runFailed(s);
      phase("checking");
      if (!(s = c.download(st))) return runFailed(s);
      Cells cells;
      cells.init(p.n);
      for (long long i = 0; i < p.n; ++i) {
        const double ref =
            mapReference(e.op, in.in0[static_cast<size_t>(i)],
                         e.op == MapOp::Double ? 0.0 : in.in1[static_cast<size_t>(i)]);
        const float got = c.host[static_cast<size_t>(i)];
        ++r.checked;
        if (isPoison(got)) {
          ++r.unwritten, ++r.wrong;
          cells.mark(i, Cell::Unwritten);
          note(r, i, ref, got, true);
          continue;
        }
        const double err = std::fabs(static_cast<double>(got) - ref);
        if (!(err <= mapTolerance(e.op, ref))) {
          ++r.wrong;
          cells.mark(i, Cell::Wrong);
          note(r, i, ref, got, false);
        }
        if (std::isfinite(err)) r.maxAbsError = std::max(r.maxAbsError, err);
      }
      cells.moveInto(r);
      checkGuard(c, r);
      if (!p.compare) break;
      // The built-in kernel and the library on the same inputs, into a second output.
      DeviceArray<float> other;
      if (!(s = other.allocate(static_cast<size_t>(p.n)))) {
        failedComparison(e.library, s);
        break;
      }
      float* po = other.get();
      auto compareWithLearner = [&](Comparison& cmp) {
        std::vector<float> h(static_cast<size_t>(p.n));
        if (cudaMemcpy(h.data(), po, h.size() * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
          cmp.outputs = Comparison::Outputs::Unreadable;
          return;
        }
        long long differ = 0;
        for (long long i = 0; i < p.n; ++i)
          differ +=
              std::memcmp(&h[static_cast<size_t>(i)], &c.host[static_cast<size_t>(i)], 4) != 0;
        cmp.outputs = differ == 0 ? Comparison::Outputs::Identical : Comparison::Outputs::Differ;
        cmp.differing = differ;
      };
      if (e.op == MapOp::Double) {
        LaunchConfig cfg;
        cfg.n = p.n;
        cfg.threadsPerBlock = 256;
        Result<LaunchShape> shape = shapeFor(cfg, DeviceLimits{});
        if (shape) {
          Comparison cmp{e.builtIn, 0, true};
          std::vector<double> ms;
          s = timeRuns(
              p.runs, st, [&] { return poison(po, p.n, false, st); },
              [&] { return launchDouble(cfg, *shape, pa, po, st); }, ms);
          if (!s) {
            failedComparison(e.builtIn, s);
            break;
          }
          cmp.ms = medianOf(ms);
          cmp.how = N_("256 threads per block, grid from N");
          compareWithLearner(cmp);
          r.comparisons.push_back(cmp);
        }
      }
      {
        Comparison cmp{e.library, 0, true};
        std::vector<double> ms;
        auto reset = [&] { return poison(po, p.n, false, st); };
        if (e.op == MapOp::Double)
          s = timeRuns(
              p.runs, st, reset,
              [&]() -> Status {
                CUDALAB_CUDA_TRY(cub::DeviceTransform::Transform(pa, po, p.n, Twice{}, st));
                return {};
              },
              ms);
        else if (e.op == MapOp::Multiply)
          s = timeRuns(
              p.runs, st, reset,
              [&]() -> Status {
                CUDALAB_CUDA_TRY(cub::DeviceTransform::Transform(::cuda::std::make_tuple(pa, pb),
                                                                 po, p.n, Times{}, st));
                return {};
              },
              ms);
        else
          s = timeRuns(
              p.runs, st, reset,
              [&]() -> Status {
                CUDALAB_CUDA_TRY(cub::DeviceTransform::Transform(::cuda::std::make_tuple(pa, pb),
                                                                 po, p.n, Hypot{}, st));
                return {};
              },
              ms);
        if (!s) {
          failedComparison(e.library, s);
          break;
        }
        cmp.ms = medianOf(ms);
        compareWithLearner(cmp);
        r.comparisons.push_back(cmp);
      }
      break;
    }

    case Kind::Counter: {
      Buffer<int> c;
      const long long guard = 4096;
      if (!(s = c.allocate(1, guard, st))) return fail(s);
      if (!(s = poison(c.ptr(), c.total(), false, st))) return fail(s);
      int* pc = c.ptr();
      void* args[] = {&pc};
      s = timeRuns(
          p.runs, st,
          [&]() -> Status {
            CUDALAB_CUDA_TRY(cudaMemsetAsync(pc, 0, sizeof(int), st));
            return {};
          },
          [&] { return launch(kernels[0], args); }, r.kernelMs,
          [&](int) {
            int v = 0;
            if (cudaMemcpy(&v, pc, sizeof v, cudaMemcpyDeviceToHost) == cudaSuccess)
              r.counts.push_back(v);
          });
      if (!s) return runFailed(s);
      phase("checking");
      if (!(s = c.download(st))) return runFailed(s);
      r.checked = static_cast<long long>(r.counts.size());
      for (size_t i = 0; i < r.counts.size(); ++i)
        if (r.counts[i] != threads) {
          ++r.wrong;
          note(r, static_cast<long long>(i), static_cast<double>(threads),
               static_cast<double>(r.counts[i]), false);
        }
      r.cells = {r.wrong ? Cell::Wrong : Cell::Correct};
      r.cellsWide = 1;
      checkGuard(c, r);
      break;
    }

    case Kind::Histogram: {
      Buffer<float> x;
      Buffer<int> h;
      const float xmin = -4.0f, xmax = 4.0f;
      const int bins = p.bins;
      if (!(s = x.allocate(p.n, guardElements(p.n, threads), st)) ||
          !(s = h.allocate(bins, 4096, st)))
        return fail(s);
      if (!(s = x.upload(in.in0, st))) return fail(s);
      if (!(s = poison(h.ptr(), h.total(), false, st))) return fail(s);
      float* px = x.ptr();
      int* ph = h.ptr();
      float lo = xmin, hi = xmax;
      int nb = bins;
      std::vector<void*> args;
      for (Arg arg : e.args) {
        switch (arg) {
          case Arg::In0:
            args.push_back(&px);
            break;
          case Arg::N:
            args.push_back(const_cast<int*>(&n));
            break;
          case Arg::XMin:
            args.push_back(&lo);
            break;
          case Arg::XMax:
            args.push_back(&hi);
            break;
          case Arg::Hist:
            args.push_back(&ph);
            break;
          default:
            args.push_back(&nb);
            break;
        }
      }
      auto zero = [&]() -> Status {
        CUDALAB_CUDA_TRY(cudaMemsetAsync(ph, 0, sizeof(int) * static_cast<size_t>(bins), st));
        return {};
      };
      s = timeRuns(
          p.runs, st, zero, [&] { return launch(kernels[0], args.data()); }, r.kernelMs);
      if (!s) return runFailed(s);
      phase("checking");
      if (!(s = h.download(st))) return runFailed(s);
      const std::vector<int> ref = cpuHistogram(in.in0, xmin, xmax, bins);
      const std::vector<int> slack = histogramSlack(in.in0, xmin, xmax, bins);
      for (int b = 0; b < bins; ++b) {
        const long long got = h.host[static_cast<size_t>(b)];
        r.binsGot.push_back(got);
        r.binsExpected.push_back(ref[static_cast<size_t>(b)]);
        ++r.checked;
        const long long diff = std::llabs(got - ref[static_cast<size_t>(b)]);
        r.maxAbsError = std::max(r.maxAbsError, static_cast<double>(diff));
        const bool wrong = diff > slack[static_cast<size_t>(b)];
        r.cells.push_back(wrong ? Cell::Wrong : Cell::Correct);
        if (wrong) {
          ++r.wrong;
          note(r, b, ref[static_cast<size_t>(b)], static_cast<double>(got), false);
        }
      }
      r.cellsWide = bins;
      checkGuard(h, r);
      if (!p.compare) break;
      // CUB's histogram of the same numbers. It counts x in [xmin, xmax) only, so numbers just
      // below xmin, which the course's truncation puts in bin 0, are not in its bin 0.
      DeviceArray<int> ch;
      if (!(s = ch.allocate(static_cast<size_t>(bins)))) {
        failedComparison(e.library, s);
        break;
      }
      size_t tempBytes = 0;
      if (cudaError_t err = cub::DeviceHistogram::HistogramEven(nullptr, tempBytes, px, ch.get(),
                                                                bins + 1, xmin, xmax, n, st);
          err != cudaSuccess) {
        failedComparison(e.library, cudaStatus(err, "HistogramEven", __FILE__, __LINE__));
        break;
      }
      DeviceArray<char> temp;
      if (!(s = temp.allocate(std::max<size_t>(tempBytes, 1)))) {
        failedComparison(e.library, s);
        break;
      }
      std::vector<double> ms;
      s = timeRuns(
          p.runs, st, [&]() -> Status { return {}; },
          [&]() -> Status {
            CUDALAB_CUDA_TRY(cub::DeviceHistogram::HistogramEven(
                temp.get(), tempBytes, px, ch.get(), bins + 1, xmin, xmax, n, st));
            return {};
          },
          ms);
      if (!s) {
        failedComparison(e.library, s);
        break;
      }
      r.comparisons.push_back({e.library, medianOf(ms), true,
                               N_("the same numbers and bins; CUB counts only xmin <= x < xmax")});
      break;
    }

    case Kind::Elementwise: {
      // f as float, then as double, on the same x.
      Buffer<float> x32, y32;
      Buffer<double> x64, y64;
      const long long guard = guardElements(p.n, threads);
      if (!(s = x32.allocate(p.n, guard, st)) || !(s = y32.allocate(p.n, guard, st)) ||
          !(s = x64.allocate(p.n, guard, st)) || !(s = y64.allocate(p.n, guard, st)))
        return fail(s);
      std::vector<double> xd(in.in0.begin(), in.in0.end());
      if (!(s = x32.upload(in.in0, st)) || !(s = x64.upload(xd, st))) return fail(s);
      float* px32 = x32.ptr();
      float* py32 = y32.ptr();
      double* px64 = x64.ptr();
      double* py64 = y64.ptr();
      void* args32[] = {&px32, &py32, const_cast<int*>(&n)};
      void* args64[] = {&px64, &py64, const_cast<int*>(&n)};
      s = timeRuns(
          p.runs, st, [&] { return poison(py32, y32.total(), false, st); },
          [&] { return launch(kernels[0], args32); }, r.kernelMs);
      if (!s) return runFailed(s);
      std::vector<double> ms64;
      s = timeRuns(
          p.runs, st, [&] { return poison(py64, y64.total(), true, st); },
          [&] { return launch(kernels[1], args64); }, ms64);
      if (!s) return runFailed(s);
      phase("checking");
      if (!(s = y32.download(st)) || !(s = y64.download(st))) return runFailed(s);
      Cells cells;
      cells.init(p.n);
      const long long sampleEvery = std::max<long long>(1, p.n / 400);
      for (long long i = 0; i < p.n; ++i) {
        const size_t k = static_cast<size_t>(i);
        const long double exact = elementwiseExact(static_cast<long double>(in.in0[k]));
        const double ex = static_cast<double>(exact);
        const float g32 = y32.host[k];
        const double g64 = y64.host[k];
        r.checked += 2;
        const bool un = isPoison(g32) || isPoison(g64);
        const double ulp32 = std::ldexp(1.0, std::ilogb(std::max(std::fabs(ex), 1e-300)) - 23);
        const double ulp64 = std::ldexp(1.0, std::ilogb(std::max(std::fabs(ex), 1e-300)) - 52);
        const bool bad32 = !(std::fabs(g32 - ex) <= kElementwiseUlps * ulp32);
        const bool bad64 =
            !(static_cast<double>(std::fabs(static_cast<long double>(g64) - exact)) <=
              kElementwiseUlps * ulp64);
        if (un) {
          ++r.unwritten, ++r.wrong;
          cells.mark(i, Cell::Unwritten);
          note(r, i, ex, isPoison(g32) ? g32 : g64, true);
        } else if (bad32 || bad64) {
          r.wrong += bad32 + bad64;
          cells.mark(i, Cell::Wrong);
          note(r, i, ex, bad32 ? g32 : g64, false);
        }
        if (std::isfinite(g32)) r.maxAbsError = std::max(r.maxAbsError, std::fabs(g32 - ex));
        if (i % sampleEvery == 0 || i == p.n - 1)
          r.samples.push_back({static_cast<double>(in.in0[k]), g32, g64, ex});
      }
      cells.moveInto(r);
      checkGuard(y32, r);
      r.comparisons.push_back(
          {N_("your f in double"), medianOf(ms64), true, N_("the same kernel with T = double")});
      break;
    }

    case Kind::Matmul: {
      Buffer<float> A, B, C;
      const long long nn = p.n * p.n;
      const long long guard = guardElements(nn, threads);
      if (!(s = A.allocate(nn, guard, st)) || !(s = B.allocate(nn, guard, st)) ||
          !(s = C.allocate(nn, guard, st)))
        return fail(s);
      if (!(s = A.upload(in.in0, st)) || !(s = B.upload(in.in1, st))) return fail(s);
      float* pa = A.ptr();
      float* pb = B.ptr();
      float* pc = C.ptr();
      void* args[] = {&pa, &pb, &pc, const_cast<int*>(&n)};
      s = timeRuns(
          p.runs, st, [&] { return poison(pc, C.total(), false, st); },
          [&] { return launch(kernels[0], args); }, r.kernelMs);
      if (!s) return runFailed(s);
      phase("checking");
      if (!(s = C.download(st))) return runFailed(s);
      // The matmul lesson's float64 reference (every row, on all cores) and its bound: n
      // roundings times the sum of |A[i,k] B[k,j]| for each element.
      std::vector<int> rows(static_cast<size_t>(p.n));
      for (int i = 0; i < n; ++i)
        rows[static_cast<size_t>(i)] = i;
      const matmul::Reference ref =
          matmul::referenceProduct(in.in0.data(), in.in1.data(), n, n, n, std::move(rows));
      const double gamma = matmul::errorBound(matmul::Precision::Float32, n);
      const int cw = static_cast<int>(std::min<long long>(p.n, 256));
      r.cellsWide = cw;
      r.cellSpan = 1;
      r.cells.assign(static_cast<size_t>(cw) * static_cast<size_t>(cw), Cell::Correct);
      auto cellOf = [&](long long i, long long j) -> Cell& {
        const long long ci = i * cw / p.n, cj = j * cw / p.n;
        return r.cells[static_cast<size_t>(ci * cw + cj)];
      };
      for (long long i = 0; i < p.n; ++i)
        for (long long j = 0; j < p.n; ++j) {
          const size_t k = static_cast<size_t>(i * p.n + j);
          const float got = C.host[k];
          ++r.checked;
          Cell& cell = cellOf(i, j);
          if (isPoison(got)) {
            ++r.unwritten, ++r.wrong;
            cell = Cell::Unwritten;
            note(r, static_cast<long long>(k), ref.c[k], got, true);
            continue;
          }
          const double err = std::fabs(got - ref.c[k]);
          if (!(err <= gamma * ref.absSum[k] + 1e-30)) {
            ++r.wrong;
            if (cell != Cell::Unwritten) cell = Cell::Wrong;
            note(r, static_cast<long long>(k), ref.c[k], got, false);
          }
          if (std::isfinite(err)) r.maxAbsError = std::max(r.maxAbsError, err);
        }
      checkGuard(C, r);
      if (!p.compare) break;
      // The matmul lesson's runner at the same size (its own fresh matrices).
      matmul::MatmulParams mp;
      mp.M = mp.N = mp.K = n;
      mp.runs = std::max(3, std::min(p.runs, 10));
      const matmul::StepId which[] = {matmul::StepId::Warp, matmul::StepId::Cublas};
      Result<matmul::LadderReport> lr = matmul::measureLadder(mp, which);
      if (!lr) {
        failedComparison(e.builtIn, lr.status());
        break;
      }
      const char* labels[] = {e.builtIn, e.library};
      for (size_t i = 0; i < lr->steps.size(); ++i)
        r.comparisons.push_back({labels[i], lr->steps[i].m.kernel().medianMs,
                                 lr->steps[i].error.ok(),
                                 N_("measured by the matmul lesson's runner at the same n")});
      break;
    }

    case Kind::Reduce: {
      Buffer<float> x, part;
      if (!(s = x.allocate(p.n, guardElements(p.n, threads), st)) ||
          !(s = part.allocate(l.grid.x, guardElements(l.grid.x, threads), st)))
        return fail(s);
      if (!(s = x.upload(in.in0, st))) return fail(s);
      float* px = x.ptr();
      float* pp = part.ptr();
      void* args[] = {&px, &pp, const_cast<int*>(&n)};
      s = timeRuns(
          p.runs, st, [&] { return poison(pp, part.total(), false, st); },
          [&] { return launch(kernels[0], args); }, r.kernelMs);
      if (!s) return runFailed(s);
      phase("checking");
      if (!(s = part.download(st))) return runFailed(s);
      // The inputs are whole numbers: the exact sum is an integer, and so is every float32 partial
      // sum a correct kernel makes (far below 2^24 in size), so the total must be exact.
      long long exact = 0;
      for (float v : in.in0)
        exact += static_cast<long long>(v);
      double total = 0;
      Cells cells;
      cells.init(l.grid.x);
      for (long long b = 0; b < l.grid.x; ++b) {
        const float v = part.host[static_cast<size_t>(b)];
        if (isPoison(v)) {
          ++r.unwritten;
          cells.mark(b, Cell::Unwritten);
          note(r, b, std::nan(""), v, true);
        } else {
          total += v;
        }
      }
      const double err = std::fabs(total - static_cast<double>(exact));
      r.checked = 1;
      r.maxAbsError = err;
      if (r.unwritten > 0 || !(err == 0)) {
        r.wrong = 1;
        note(r, -1, static_cast<double>(exact), total, false);
      }
      cells.moveInto(r);
      checkGuard(part, r);
      r.exactSum = exact;
      // A partial sum that is infinite or NaN (but not the poison) has no integer to show.
      if (std::isfinite(total) && std::fabs(total) < 4e18) {
        r.sum = std::llround(total);
        r.summary = "Your sum " + thousands(*r.sum) + ", the exact sum " + thousands(exact);
      }
      if (!p.compare) break;
      reduction::ReduceParams rp;
      rp.type = reduction::DataType::Float32;
      rp.n = p.n;
      rp.runs = std::max(3, std::min(p.runs, 10));
      const reduction::StepId which[] = {reduction::StepId::Atomic, reduction::StepId::Cub};
      Result<reduction::LadderReport> lr = reduction::measureLadder(rp, which);
      if (!lr) {
        failedComparison(e.builtIn, lr.status());
        break;
      }
      const char* labels[] = {e.builtIn, e.library};
      for (size_t i = 0; i < lr->steps.size(); ++i)
        r.comparisons.push_back({labels[i], lr->steps[i].ms, lr->steps[i].ok,
                                 N_("measured by the reduction lesson's runner at the same N")});
      break;
    }
  }

  if (p.lineCounters && r.linesProblem.empty()) {
    r.lines =
        counters::countersByLine(sassRecords, kProgramName, [&](const counters::SassRecord& rec) {
          Result<counters::SourcePlace> place =
              counters::sourcePlace(loaded.image, rec.function, rec.pcOffset);
          return place ? *place : counters::SourcePlace{};
        });
    if (r.lines.empty()) r.linesProblem = N_("The profiler saw no instruction of your kernel.");
  }
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
  return out;
}

}  // namespace cudalab::playground
