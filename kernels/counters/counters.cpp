// Hardware counters through CUPTI's Range Profiler, loaded with dlopen: the table of metrics, the
// sentences for failures, and one profiling session per call of profile().
#include "counters/counters.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <mutex>

#include "common/cuda_check.hpp"

namespace cudalab::counters {

// ---------------------------------------------------------------------------------------------
// [SECTION] Metrics
// ---------------------------------------------------------------------------------------------

namespace {

const MetricInfo kMetrics[] = {
    {"global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors",
     "32-byte sectors the warps' global loads touched in L1: the memory traffic of the loads."},
    {"global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests",
     "Warp-wide global load instructions: sectors / requests is 4 for a perfectly coalesced "
     "float load, 32 when every lane touches its own sector."},
    {"global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sectors",
     "32-byte sectors the warps' global stores touched."},
    {"global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "requests",
     "Warp-wide global store instructions."},
    {"shared_load_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts",
     "Passes shared memory needed for the loads: one per request without bank conflicts, up to "
     "32 when all lanes hit different words of one bank."},
    {"shared_load_requests", "smsp__inst_executed_op_shared_ld.sum", "requests",
     "Warp-wide shared-memory load instructions."},
    {"shared_store_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
     "wavefronts", "Passes shared memory needed for the stores."},
    {"shared_store_requests", "smsp__inst_executed_op_shared_st.sum", "requests",
     "Warp-wide shared-memory store instructions."},
    {"shared_load_wavefronts_sass",
     "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts",
     "Shared-load wavefronts counted per instruction by the SM (SASS): the kernel's own loads "
     "only, without the hardware's other uses of the pipe."},
    {"shared_store_wavefronts_sass",
     "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts",
     "Shared-store wavefronts counted per instruction by the SM (SASS)."},
    {"shared_load_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
     "conflicts",
     "Extra passes shared-memory loads needed because lanes hit different words of one bank."},
    {"shared_store_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
     "conflicts", "The same for shared-memory stores."},
    {"divergent_branches", "smsp__sass_branch_targets_threads_divergent.sum", "branches",
     "Branches where a warp's threads went different ways, so the warp ran both paths one "
     "after the other (divergence)."},
    {"l1_hit_rate", "l1tex__t_sector_hit_rate.pct", "%",
     "Share of the sectors asked of L1 that were already there."},
    {"l2_hit_rate", "lts__t_sector_hit_rate.pct", "%",
     "Share of the sectors asked of L2 that were already there (not fetched from DRAM)."},
    {"dram_bytes_read", "dram__bytes_read.sum", "bytes", "Bytes read from the GPU's memory."},
    {"dram_bytes_written", "dram__bytes_write.sum", "bytes", "Bytes written to the GPU's memory."},
    {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "%",
     "Warps resident on an SM on average, against the most it can hold: the occupancy reached, "
     "beside the theoretical one from registers, shared memory and block size."},
    {"warp_efficiency", "smsp__thread_inst_executed_per_inst_executed.ratio", "threads",
     "Threads active per executed warp instruction (32 at best): divergence lowers it."},
    {"instructions", "smsp__inst_executed.sum", "instructions", "Warp instructions executed."},
};

}  // namespace

std::span<const MetricInfo> metrics() {
  return kMetrics;
}

const MetricInfo* findMetric(const std::string& key) {
  for (const MetricInfo& m : kMetrics)
    if (key == m.key) return &m;
  return nullptr;
}

std::optional<double> LaunchCounters::value(const std::string& key) const {
  for (size_t i = 0; i < keys.size() && i < values.size(); ++i)
    if (keys[i] == key) return values[i];
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Failures
// ---------------------------------------------------------------------------------------------

std::string failureSentence(int code, const std::string& what) {
  switch (code) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "The GPU's counters are restricted to administrators on this machine (" + what +
             " said CUPTI_ERROR_INSUFFICIENT_PRIVILEGES). An administrator can allow them for "
             "everyone with the NVIDIA driver option NVreg_RestrictProfilingToAdminUsers=0 (for "
             "example a line `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in "
             "/etc/modprobe.d/, then a reboot); or run the app as root. Everything else works.";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return "This GPU's counters cannot be read by this CUPTI (" + what +
             " said the device is not supported: too old, too new for this toolkit, or a "
             "virtual GPU). The models still work.";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "Another profiler is attached to this process (Nsight Compute or Systems); the "
             "app cannot read the counters at the same time.";
    default:
      return "The GPU's counters could not be read: " + what + " failed with CUPTI error " +
             std::to_string(code) + ".";
  }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Profiling
// ---------------------------------------------------------------------------------------------

namespace {

// CUPTI's entry points, from libcupti loaded at run time.
struct Cupti {
#define CUDALAB_CUPTI_FN(name) decltype(&::name) name = nullptr
  CUDALAB_CUPTI_FN(cuptiGetResultString);
  CUDALAB_CUPTI_FN(cuptiProfilerInitialize);
  CUDALAB_CUPTI_FN(cuptiProfilerDeInitialize);
  CUDALAB_CUPTI_FN(cuptiDeviceGetChipName);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerEnable);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerDisable);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerSetConfig);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerStart);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerStop);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerDecodeData);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerGetCounterDataSize);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerCounterDataImageInitialize);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerGetCounterDataInfo);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerCounterDataGetRangeInfo);
  CUDALAB_CUPTI_FN(cuptiProfilerHostInitialize);
  CUDALAB_CUPTI_FN(cuptiProfilerHostDeinitialize);
  CUDALAB_CUPTI_FN(cuptiProfilerHostConfigAddMetrics);
  CUDALAB_CUPTI_FN(cuptiProfilerHostGetConfigImageSize);
  CUDALAB_CUPTI_FN(cuptiProfilerHostGetConfigImage);
  CUDALAB_CUPTI_FN(cuptiProfilerHostEvaluateToGpuValues);
#undef CUDALAB_CUPTI_FN
  std::string problem;  // why it could not be loaded
};

const Cupti& cupti() {
  static const Cupti loaded = [] {
    Cupti c;
    void* lib = nullptr;
    std::string tried;
    for (const char* name : {"libcupti.so.13", "libcupti.so",
#ifdef CUDALAB_CUPTI_LIBRARY
                             CUDALAB_CUPTI_LIBRARY,
#endif
                             "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"}) {
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
      tried += std::string(tried.empty() ? "" : ", ") + name;
    }
    if (!lib) {
      c.problem =
          "The GPU's counters need CUPTI (libcupti, part of the CUDA toolkit), and it "
          "could not be loaded (tried " +
          tried + "). The models still work.";
      return c;
    }
    bool all = true;
#define CUDALAB_CUPTI_LOAD(name)                                  \
  c.name = reinterpret_cast<decltype(c.name)>(dlsym(lib, #name)); \
  if (!c.name) {                                                  \
    all = false;                                                  \
    c.problem = "This CUPTI has no " #name                        \
                ": the Range Profiler needs CUDA 12.6 "           \
                "or newer. The models still work.";               \
  }
    CUDALAB_CUPTI_LOAD(cuptiGetResultString)
    CUDALAB_CUPTI_LOAD(cuptiProfilerInitialize)
    CUDALAB_CUPTI_LOAD(cuptiProfilerDeInitialize)
    CUDALAB_CUPTI_LOAD(cuptiDeviceGetChipName)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerEnable)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerDisable)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerSetConfig)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerStart)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerStop)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerDecodeData)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerGetCounterDataSize)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerCounterDataImageInitialize)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerGetCounterDataInfo)
    CUDALAB_CUPTI_LOAD(cuptiRangeProfilerCounterDataGetRangeInfo)
    CUDALAB_CUPTI_LOAD(cuptiProfilerHostInitialize)
    CUDALAB_CUPTI_LOAD(cuptiProfilerHostDeinitialize)
    CUDALAB_CUPTI_LOAD(cuptiProfilerHostConfigAddMetrics)
    CUDALAB_CUPTI_LOAD(cuptiProfilerHostGetConfigImageSize)
    CUDALAB_CUPTI_LOAD(cuptiProfilerHostGetConfigImage)
    CUDALAB_CUPTI_LOAD(cuptiProfilerHostEvaluateToGpuValues)
#undef CUDALAB_CUPTI_LOAD
    (void)all;
    return c;
  }();
  return loaded;
}

// A parameter struct with its size set and everything else zero, as CUPTI expects.
template <class P>
P params(size_t structSize) {
  P p{};
  p.structSize = structSize;
  return p;
}

// One CUPTI call, its failure as a Status with the learner's sentence.
#define CUDALAB_CUPTI_TRY(call, params)                                                        \
  do {                                                                                         \
    const CUptiResult cudalab_r_ = c.call(&(params));                                          \
    if (cudalab_r_ != CUPTI_SUCCESS) return Status::error(failureSentence(cudalab_r_, #call)); \
  } while (0)

// The driver's current context (the runtime's primary context after cudaFree(0)), without
// linking the driver library: the app must start where there is none.
Result<CUcontext> currentContext() {
  CUDALAB_CUDA_TRY(cudaFree(nullptr));
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CUDALAB_CUDA_TRY(
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q));
  if (!fn || q != cudaDriverEntryPointSuccess)
    return Status::error("The CUDA driver has no cuCtxGetCurrent.");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
    return Status::error("There is no CUDA context to profile.");
  return ctx;
}

// Everything one profile() call holds, released in reverse order whatever happens.
struct Session {
  const Cupti& c;
  bool initialized = false;
  CUpti_RangeProfiler_Object* object = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  explicit Session(const Cupti& cupti) : c(cupti) {}
  ~Session() {
    if (host) {
      auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(
          CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
      p.pHostObject = host;
      c.cuptiProfilerHostDeinitialize(&p);
    }
    if (object) {
      auto p = params<CUpti_RangeProfiler_Disable_Params>(
          CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      p.pRangeProfilerObject = object;
      c.cuptiRangeProfilerDisable(&p);
    }
    if (initialized) {
      auto p = params<CUpti_Profiler_DeInitialize_Params>(
          CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
      c.cuptiProfilerDeInitialize(&p);
    }
  }
};

std::mutex& profilerMutex() {
  static std::mutex m;  // one profiling session at a time in the process
  return m;
}

}  // namespace

Result<std::vector<LaunchCounters>> profile(const std::vector<std::string>& keys,
                                            const std::function<Status()>& work, int maxLaunches) {
  if (keys.empty()) return Status::error("No metric was asked for.");
  std::vector<const char*> names;
  for (const std::string& k : keys) {
    const MetricInfo* m = findMetric(k);
    if (!m) return Status::error("The app knows no metric called \"" + k + "\".");
    names.push_back(m->cupti);
  }
  const Cupti& c = cupti();
  if (!c.problem.empty()) return Status::error(c.problem);
  std::lock_guard<std::mutex> lock(profilerMutex());
  Result<CUcontext> ctx = currentContext();
  if (!ctx) return ctx.status();
  int device = 0;
  CUDALAB_CUDA_TRY(cudaGetDevice(&device));

  Session s(c);
  auto init =
      params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  CUDALAB_CUPTI_TRY(cuptiProfilerInitialize, init);
  s.initialized = true;
  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = size_t(device);
  CUDALAB_CUPTI_TRY(cuptiDeviceGetChipName, chip);
  const std::string chipName = chip.pChipName ? chip.pChipName : "";

  auto enable =
      params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = *ctx;
  CUDALAB_CUPTI_TRY(cuptiRangeProfilerEnable, enable);
  s.object = enable.pRangeProfilerObject;

  // The configuration image: which counters to program, in how many passes.
  auto hostInit = params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  hostInit.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hostInit.pChipName = chipName.c_str();
  hostInit.pCounterAvailabilityImage = nullptr;
  CUDALAB_CUPTI_TRY(cuptiProfilerHostInitialize, hostInit);
  s.host = hostInit.pHostObject;
  auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = s.host;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  CUDALAB_CUPTI_TRY(cuptiProfilerHostConfigAddMetrics, add);
  auto configSize = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  configSize.pHostObject = s.host;
  CUDALAB_CUPTI_TRY(cuptiProfilerHostGetConfigImageSize, configSize);
  std::vector<std::uint8_t> config(configSize.configImageSize);
  auto configImage = params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  configImage.pHostObject = s.host;
  configImage.pConfigImage = config.data();
  configImage.configImageSize = config.size();
  CUDALAB_CUPTI_TRY(cuptiProfilerHostGetConfigImage, configImage);

  // The counter data image: where the values of up to maxLaunches ranges land.
  auto dataSize = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  dataSize.pRangeProfilerObject = s.object;
  dataSize.pMetricNames = names.data();
  dataSize.numMetrics = names.size();
  dataSize.maxNumOfRanges = size_t(maxLaunches);
  dataSize.maxNumRangeTreeNodes = size_t(maxLaunches);
  CUDALAB_CUPTI_TRY(cuptiRangeProfilerGetCounterDataSize, dataSize);
  std::vector<std::uint8_t> data(dataSize.counterDataSize);
  auto dataInit = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  dataInit.pRangeProfilerObject = s.object;
  dataInit.pCounterData = data.data();
  dataInit.counterDataSize = data.size();
  CUDALAB_CUPTI_TRY(cuptiRangeProfilerCounterDataImageInitialize, dataInit);

  // Every kernel launch is a range of its own (auto range), replayed once per pass (kernel
  // replay): one run of the work collects every metric.
  auto set = params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = s.object;
  set.configSize = config.size();
  set.pConfig = config.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = CUPTI_KernelReplay;
  set.maxRangesPerPass = size_t(maxLaunches);
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 0;
  CUDALAB_CUPTI_TRY(cuptiRangeProfilerSetConfig, set);

  auto start =
      params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = s.object;
  CUDALAB_CUPTI_TRY(cuptiRangeProfilerStart, start);
  const Status ran = work();
  const cudaError_t synced = cudaDeviceSynchronize();
  auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = s.object;
  CUDALAB_CUPTI_TRY(cuptiRangeProfilerStop, stop);
  if (!ran) return ran;
  CUDALAB_CUDA_TRY(synced);
  auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = s.object;
  CUDALAB_CUPTI_TRY(cuptiRangeProfilerDecodeData, decode);

  auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  CUDALAB_CUPTI_TRY(cuptiRangeProfilerGetCounterDataInfo, info);
  std::vector<LaunchCounters> out;
  for (size_t r = 0; r < info.numTotalRanges; ++r) {
    LaunchCounters lc;
    lc.keys = keys;
    lc.values.assign(names.size(), 0.0);
    auto range = params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    range.counterDataImageSize = data.size();
    range.pCounterDataImage = data.data();
    range.rangeIndex = r;
    range.rangeDelimiter = "/";
    CUDALAB_CUPTI_TRY(cuptiRangeProfilerCounterDataGetRangeInfo, range);
    lc.range = range.rangeName ? range.rangeName : "";
    auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    eval.pHostObject = s.host;
    eval.pCounterDataImage = data.data();
    eval.counterDataImageSize = data.size();
    eval.ppMetricNames = names.data();
    eval.numMetrics = names.size();
    eval.rangeIndex = r;
    eval.pMetricValues = lc.values.data();
    CUDALAB_CUPTI_TRY(cuptiProfilerHostEvaluateToGpuValues, eval);
    out.push_back(std::move(lc));
  }
  return out;
}

}  // namespace cudalab::counters
