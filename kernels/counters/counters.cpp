// Hardware counters through CUPTI's Range Profiler, loaded with dlopen: the table of metrics, the
// sentences for failures, and one profiling session per call of profile().
#include "counters/counters.hpp"

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <utility>

#include "common/cuda_check.hpp"
#include "common/translatable.hpp"
#include "counters/cupti_loader.hpp"
#include "common/table.hpp"

namespace cudalab::counters {

// ---------------------------------------------------------------------------------------------
// [SECTION] Metrics
// ---------------------------------------------------------------------------------------------

namespace {

const MetricInfo kMetrics[] = {
    {"global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors",
     N_("32-byte sectors the warps' global loads touched in L1: the memory traffic of the loads.")},
    {"global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests",
     N_("Warp-wide global load instructions: sectors / requests is 4 for a perfectly coalesced "
        "float load, 32 when every lane touches its own sector.")},
    {"global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sectors",
     N_("32-byte sectors the warps' global stores touched.")},
    {"global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "requests",
     N_("Warp-wide global store instructions.")},
    {"shared_load_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts",
     N_("Passes shared memory needed for the loads: one per request without bank conflicts, up to "
        "32 when all lanes hit different words of one bank.")},
    {"shared_load_requests", "smsp__inst_executed_op_shared_ld.sum", "requests",
     N_("Warp-wide shared-memory load instructions.")},
    {"shared_store_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
     "wavefronts", N_("Passes shared memory needed for the stores.")},
    {"shared_store_requests", "smsp__inst_executed_op_shared_st.sum", "requests",
     N_("Warp-wide shared-memory store instructions.")},
    {"shared_load_wavefronts_sass",
     "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts",
     N_("Shared-load wavefronts counted per instruction by the SM (SASS): the kernel's own loads "
        "only, without the hardware's other uses of the pipe.")},
    {"shared_store_wavefronts_sass",
     "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts",
     N_("Shared-store wavefronts counted per instruction by the SM (SASS).")},
    {"shared_load_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
     "conflicts",
     N_("Extra passes shared-memory loads needed because lanes hit different words of one bank.")},
    {"shared_store_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
     "conflicts", N_("The same for shared-memory stores.")},
    {"shared_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "conflicts",
     N_("Extra passes every kind of shared-memory access needed because lanes hit different words "
        "of one bank: loads, ldmatrix, stores, cp.async copies and, on Hopper, the tensor cores' "
        "own reads (wgmma).")},
    {"tensor_pipe_active", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "%",
     N_("Share of the SMs' active cycles in which the tensor cores worked: how well the kernel "
        "keeps them fed.")},
    {"tensor_instructions", "sm__inst_executed_pipe_tensor.sum", "instructions",
     N_("Warp instructions the tensor cores executed (HMMA for WMMA and mma.sync, HGMMA for "
        "wgmma): larger instructions do the same work in fewer.")},
    {"divergent_branches", "smsp__sass_branch_targets_threads_divergent.sum", "branches",
     N_("Branches where a warp's threads went different ways, so the warp ran both paths one "
        "after the other (divergence).")},
    {"l1_hit_rate", "l1tex__t_sector_hit_rate.pct", "%",
     N_("Share of the sectors asked of L1 that were already there.")},
    {"l2_hit_rate", "lts__t_sector_hit_rate.pct", "%",
     N_("Share of the sectors asked of L2 that were already there (not fetched from DRAM).")},
    {"dram_bytes_read", "dram__bytes_read.sum", "bytes", N_("Bytes read from the GPU's memory.")},
    {"dram_bytes_written", "dram__bytes_write.sum", "bytes",
     N_("Bytes written to the GPU's memory.")},
    {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "%",
     N_("Warps resident on an SM on average, against the most it can hold: the occupancy reached, "
        "beside the theoretical one from registers, shared memory and block size.")},
    {"warp_efficiency", "smsp__thread_inst_executed_per_inst_executed.ratio", "threads",
     N_("Threads active per executed warp instruction (32 at best): divergence lowers it.")},
    {"instructions", "smsp__inst_executed.sum", "instructions", N_("Warp instructions executed.")},
    {"sm_busy", "sm__cycles_active.avg.pct_of_peak_sustained_elapsed", "%",
     N_("Share of the kernel's time an average SM had at least one warp: a grid too small for the "
        "GPU, or a last wave of few blocks, leaves SMs idle.")},
};

const RatioInfo kRatios[] = {
    {"global_load_sectors_per_request", "global_load_sectors", "global_load_requests",
     N_("32-byte sectors per warp-wide global load: 4 when a warp's 32 floats are consecutive, 32 "
        "when every lane reads its own sector.")},
    {"global_store_sectors_per_request", "global_store_sectors", "global_store_requests",
     N_("32-byte sectors per warp-wide global store.")},
    {"shared_load_wavefronts_per_request", "shared_load_wavefronts_sass", "shared_load_requests",
     N_("Passes shared memory needs per warp-wide load: 1 without bank conflicts, up to 32.")},
    {"shared_store_wavefronts_per_request", "shared_store_wavefronts_sass", "shared_store_requests",
     N_("Passes shared memory needs per warp-wide store.")},
};

}  // namespace

std::span<const MetricInfo> metrics() {
  return kMetrics;
}

const MetricInfo* findMetric(const std::string& key) {
  return findRow(kMetrics, &MetricInfo::key, key);
}

std::span<const RatioInfo> ratios() {
  return kRatios;
}

const RatioInfo* findRatio(const std::string& key) {
  return findRow(kRatios, &RatioInfo::key, key);
}

Result<std::vector<std::string>> rawKeys(const std::vector<std::string>& keys) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& k) {
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  };
  for (const std::string& k : keys) {
    if (const RatioInfo* r = findRatio(k)) {
      add(r->num);
      add(r->den);
    } else if (findMetric(k)) {
      add(k);
    } else {
      return Status::error("The app knows no metric called \"" + k + "\".");
    }
  }
  return out;
}

std::optional<double> LaunchCounters::value(const std::string& key) const {
  if (const RatioInfo* r = findRatio(key)) {
    const std::optional<double> num = value(r->num), den = value(r->den);
    if (!num || !den || *den == 0 || std::isnan(*den)) return std::nullopt;
    return *num / *den;
  }
  for (size_t i = 0; i < keys.size() && i < values.size(); ++i)
    if (keys[i] == key) return std::isnan(values[i]) ? std::nullopt : std::optional(values[i]);
  return std::nullopt;
}

std::optional<double> StepReading::modelValue(const std::string& k) const {
  for (const auto& [name, v] : model)
    if (name == k) return v;
  return std::nullopt;
}

Result<StepReading> profileStep(std::string key, std::string label, int colour,
                                const std::vector<std::string>& keys,
                                const std::function<Status()>& work) {
  Result<std::vector<LaunchCounters>> r = profile(keys, work);
  if (!r) return r.status();
  if (r->empty()) return Status::error("The profiler saw no kernel of " + label + ".");
  StepReading reading;
  reading.key = std::move(key);
  reading.label = std::move(label);
  reading.colour = colour;
  reading.launches = int(r->size());
  reading.measured = std::move(r->front());
  return reading;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Checking
// ---------------------------------------------------------------------------------------------

namespace {
struct JournalState {
  std::mutex m;
  bool on = false;
  std::string what;
  std::vector<JournalEntry> entries;
};
JournalState& journal() {
  static JournalState j;
  return j;
}
std::atomic<bool> gMarkOnly{false};
}  // namespace

void setJournal(bool on) {
  std::lock_guard<std::mutex> lock(journal().m);
  journal().on = on;
}

void journalLabel(const std::string& what) {
  std::lock_guard<std::mutex> lock(journal().m);
  journal().what = what;
}

std::vector<JournalEntry> takeJournal() {
  std::lock_guard<std::mutex> lock(journal().m);
  return std::exchange(journal().entries, {});
}

void setMarkOnly(bool on) {
  gMarkOnly = on;
}

bool markOnly() {
  return gMarkOnly;
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

// Everything one profile() call holds, released in reverse order whatever happens.
//
// Each profile enables the Range Profiler and disables it again, and each such pair leaves about
// 78 KiB of host memory behind in the driver (H100, driver 580, CUPTI 13.0: malloc's live bytes
// over 60 cycles in a small program; keeping cuptiProfilerInitialize alone made no difference).
// Keeping the profiler enabled would stop that, and both ways of doing it failed on the H100:
// kept for the process, and kept only across a ladder's steps with the same metrics, the next
// profile's first kernel launch crashed inside CUPTI (NVPW_CUDA_Profiler_BeginPass), and a kept
// object configured again for other metrics hung. So a class that reads the counters a thousand
// times loses about 80 MiB to the driver; docs/RELIABILITY.md has the measurements and the way
// out (reading counters in a helper process, as the playground runs learners' kernels).
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

}  // namespace

Result<std::vector<LaunchCounters>> profile(const std::vector<std::string>& keys,
                                            const std::function<Status()>& work, int maxLaunches) {
  if (keys.empty()) return Status::error("No metric was asked for.");
  Result<std::vector<std::string>> raw = rawKeys(keys);
  if (!raw) return raw.status();
  std::vector<const char*> names;
  for (const std::string& k : *raw)
    names.push_back(findMetric(k)->cupti);
  if (markOnly()) {
    // Nsight Compute profiles these kernels: run them once, marked, and read nothing.
    nvtxRangePushA(kNvtxRange);
    const Status ran = work();
    const cudaError_t synced = cudaDeviceSynchronize();
    nvtxRangePop();
    if (!ran) return ran;
    CUDALAB_CUDA_TRY(synced);
    LaunchCounters none;
    none.keys = *raw;
    none.values.assign(raw->size(), NAN);
    return std::vector<LaunchCounters>{none};
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
    lc.keys = *raw;
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
  {
    std::lock_guard<std::mutex> journalLock(journal().m);
    if (journal().on) {
      JournalEntry e;
      e.what = journal().what;
      for (const LaunchCounters& lc : out) {
        std::vector<std::pair<std::string, double>> launch;
        for (size_t i = 0; i < lc.keys.size(); ++i)
          launch.emplace_back(findMetric(lc.keys[i])->cupti, lc.values[i]);
        e.launches.push_back(std::move(launch));
      }
      journal().entries.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace cudalab::counters
