// Per-line counters: the SASS metrics table, the sum per source line, and the CUPTI calls that
// collect the records and correlate instructions with lines.
#include "counters/source_lines.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <map>
#include <optional>

#include "common/cuda_check.hpp"
#include "common/translatable.hpp"
#include "counters/counters.hpp"
#include "counters/cupti_loader.hpp"

namespace cudalab::counters {

// ---------------------------------------------------------------------------------------------
// [SECTION] Metrics
// ---------------------------------------------------------------------------------------------

namespace {
const SassMetricInfo kSass[] = {
    {SassMetric::Instructions,
     {{"smsp__sass_inst_executed"}},
     N_("Warp instructions executed: how often warps ran the line's machine instructions.")},
    {SassMetric::ThreadInstructions,
     {{"smsp__sass_thread_inst_executed"}},
     N_("Thread instructions: the same, counting every thread that took part (32 per warp "
        "instruction at best; fewer where a branch or a guard idles lanes).")},
    {SassMetric::GlobalSectors,
     {{"smsp__sass_sectors_mem_global"},
      {"smsp__sass_sectors_mem_global_op_ld", "smsp__sass_sectors_mem_global_op_st"}},
     N_("32-byte sectors the line's global loads and stores touched.")},
    {SassMetric::GlobalRequests,
     {{"smsp__sass_inst_executed_op_global"},
      {"smsp__sass_inst_executed_op_global_ld", "smsp__sass_inst_executed_op_global_st"}},
     N_("Warp-wide global load and store instructions the line executed.")},
    {SassMetric::SharedWavefronts,
     {{"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"},
      {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared"}},
     N_("Passes shared memory needed for the line's accesses: one per instruction without bank "
        "conflicts.")},
    {SassMetric::SharedRequests,
     {{"smsp__sass_inst_executed_op_shared"},
      {"smsp__sass_inst_executed_op_shared_ld", "smsp__sass_inst_executed_op_shared_st"}},
     N_("Warp-wide shared-memory instructions the line executed.")},
};
}  // namespace

std::span<const SassMetricInfo> sassMetrics() {
  return kSass;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Per line
// ---------------------------------------------------------------------------------------------

double LineCounters::sectorsPerRequest() const {
  const auto r = value(SassMetric::GlobalRequests);
  return r ? double(value(SassMetric::GlobalSectors)) / double(r) : 0;
}

double LineCounters::wavefrontsPerRequest() const {
  const auto r = value(SassMetric::SharedRequests);
  return r ? double(value(SassMetric::SharedWavefronts)) / double(r) : 0;
}

double LineCounters::threadsPerInstruction() const {
  const auto r = value(SassMetric::Instructions);
  return r ? double(value(SassMetric::ThreadInstructions)) / double(r) : 0;
}

int programLine(const SourcePlace& place, const std::string& programFile) {
  // The program's own file, by name (CUPTI reports the name NVRTC was given, sometimes with a
  // directory in front).
  const bool ours =
      place.line > 0 && (place.file == programFile ||
                         (place.file.size() > programFile.size() &&
                          place.file.compare(place.file.size() - programFile.size() - 1,
                                             std::string::npos, "/" + programFile) == 0));
  return ours ? place.line : 0;
}

namespace {

// Lines being summed, by number: add() puts `instructions` instructions and their counts on a
// line; lines() gives them in ascending order.
class LineSums {
 public:
  void add(int line, int instructions, const std::uint64_t (&values)[int(SassMetric::Count)]) {
    LineCounters& sum = byLine_[line];
    sum.line = line;
    sum.instructionsOnLine += instructions;
    for (int m = 0; m < int(SassMetric::Count); ++m)
      sum.values[m] += values[m];
  }
  std::vector<LineCounters> lines() const {
    std::vector<LineCounters> out;
    for (const auto& [line, l] : byLine_)
      out.push_back(l);
    return out;
  }

 private:
  std::map<int, LineCounters> byLine_;
};

}  // namespace

std::vector<LineCounters> joinLines(std::span<const LineCounters> a,
                                    std::span<const LineCounters> b) {
  LineSums sums;
  for (std::span<const LineCounters> part : {a, b})
    for (const LineCounters& l : part)
      sums.add(l.line, l.instructionsOnLine, l.values);
  return sums.lines();
}

std::vector<LineCounters> countersByLine(
    std::span<const SassRecord> records, const std::string& programFile,
    const std::function<SourcePlace(const SassRecord&)>& placeOf) {
  LineSums sums;
  for (const SassRecord& r : records)
    sums.add(programLine(placeOf(r), programFile), 1, r.values);
  return sums.lines();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Profiling
// ---------------------------------------------------------------------------------------------

namespace {
// The chip's SASS metrics, for the sentence when one the app needs is missing.
std::string sassMetricNames(const Cupti& c, const char* chip) {
  auto n = params<CUpti_SassMetrics_GetNumOfMetrics_Params>(
      CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE);
  n.pChipName = chip;
  if (c.cuptiSassMetricsGetNumOfMetrics(&n) != CUPTI_SUCCESS) return "?";
  std::vector<CUpti_SassMetrics_MetricDetails> list(n.numOfMetrics);
  auto get =
      params<CUpti_SassMetrics_GetMetrics_Params>(CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE);
  get.pChipName = chip;
  get.numOfMetrics = list.size();
  get.pMetricsList = list.data();
  if (c.cuptiSassMetricsGetMetrics(&get) != CUPTI_SUCCESS) return "?";
  std::string out;
  for (const auto& m : list)
    if (m.pMetricName) out += std::string(out.empty() ? "" : ", ") + m.pMetricName;
  return out;
}
}  // namespace

namespace {

// The SASS metrics' configuration, set once per process and kept: CUPTI refuses to set it again
// in a process once it has been unset (CUPTI_ERROR_INVALID_OPERATION). (A second enable in the
// same process then returned no records on the H100 with CUPTI 13.0, so the playground's worker
// exits after a run with counters per line: see worker_server.cpp.)
struct SassConfig {
  Status failed;
  std::map<std::uint64_t, int> slotOf;  // CUPTI's metric id -> SassMetric
};

Result<const SassConfig*> sassConfig(const Cupti& c) {
  static const SassConfig config = [&c] {
    SassConfig out;
    auto fail = [&out](const Status& s) {
      out.failed = s;
      return out;
    };
    int device = 0;
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
      return fail(Status::error(std::string("cudaGetDevice failed: ") + cudaGetErrorString(e)));
    auto init =
        params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (const CUptiResult r = c.cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS)
      return fail(Status::error(failureSentence(r, "cuptiProfilerInitialize")));
    auto chip =
        params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = size_t(device);
    if (const CUptiResult r = c.cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS)
      return fail(Status::error(failureSentence(r, "cuptiDeviceGetChipName")));
    auto idOf = [&](const char* name) -> std::optional<std::uint64_t> {
      auto prop = params<CUpti_SassMetrics_GetProperties_Params>(
          CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
      prop.pChipName = chip.pChipName;
      prop.pMetricName = name;
      if (c.cuptiSassMetricsGetProperties(&prop) != CUPTI_SUCCESS) return std::nullopt;
      return prop.metric.metricId;
    };
    std::vector<CUpti_SassMetrics_Config> configs;
    for (const SassMetricInfo& m : kSass) {
      bool found = false;
      for (const std::vector<const char*>& names : m.cupti) {
        std::vector<std::uint64_t> ids;
        for (const char* name : names)
          if (const std::optional<std::uint64_t> id = idOf(name)) ids.push_back(*id);
        if (ids.size() != names.size()) continue;
        for (std::uint64_t id : ids) {
          configs.push_back({id, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
          out.slotOf[id] = int(m.id);
        }
        found = true;
        break;
      }
      if (!found)
        return fail(Status::error(std::string("This GPU has no SASS metric ") + m.cupti[0][0] +
                                  " (it has " + sassMetricNames(c, chip.pChipName) +
                                  "): counters per source line cannot be read here."));
    }
    auto set =
        params<CUpti_SassMetricsSetConfig_Params>(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
    set.pConfigs = configs.data();
    set.numOfMetricConfig = configs.size();
    set.deviceIndex = uint32_t(device);
    if (const CUptiResult r = c.cuptiSassMetricsSetConfig(&set); r != CUPTI_SUCCESS)
      return fail(Status::error(failureSentence(r, "cuptiSassMetricsSetConfig")));
    return out;
  }();
  if (!config.failed.ok()) return config.failed;
  return &config;
}

}  // namespace

Result<std::vector<SassRecord>> profileSass(const std::function<Status()>& work) {
  const Cupti& c = cupti();
  if (!c.sassProblem.empty()) return Status::error(c.sassProblem);
  std::lock_guard<std::mutex> lock(profilerMutex());
  Result<CUcontext> ctx = currentContext();
  if (!ctx) return ctx.status();
  Result<const SassConfig*> config = sassConfig(c);
  if (!config) return config.status();
  const std::map<std::uint64_t, int>& slotOf = (*config)->slotOf;

  auto enable = params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
  enable.ctx = *ctx;
  enable.enableLazyPatching = 1;  // only the kernels the work launches
  CUDALAB_CUPTI_TRY(cuptiSassMetricsEnable, enable);
  struct Disable {
    const Cupti& c;
    CUcontext ctx;
    bool done = false;
    ~Disable() {
      if (done) return;
      auto p = params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
      p.ctx = ctx;
      c.cuptiSassMetricsDisable(&p);
    }
  } disable{c, *ctx};

  const Status ran = work();
  if (!ran) return ran;
  CUDALAB_CUDA_TRY(cudaDeviceSynchronize());

  auto props = params<CUpti_SassMetricsGetDataProperties_Params>(
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
  props.ctx = *ctx;
  CUDALAB_CUPTI_TRY(cuptiSassMetricsGetDataProperties, props);
  std::vector<SassRecord> out;
  const size_t n = props.numOfPatchedInstructionRecords, instances = props.numOfInstances;
  if (n > 0 && instances > 0) {
    std::vector<CUpti_SassMetrics_Data> data(n);
    std::vector<CUpti_SassMetrics_InstanceValue> values(n * instances);
    for (size_t i = 0; i < n; ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = &values[i * instances];
    }
    auto flush =
        params<CUpti_SassMetricsFlushData_Params>(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
    flush.ctx = *ctx;
    flush.numOfPatchedInstructionRecords = n;
    flush.numOfInstances = instances;
    flush.pMetricsData = data.data();
    CUDALAB_CUPTI_TRY(cuptiSassMetricsFlushData, flush);
    for (size_t i = 0; i < n; ++i) {
      SassRecord r;
      if (data[i].functionName) {
        r.function = data[i].functionName;
        std::free(const_cast<char*>(data[i].functionName));  // CUPTI's allocation
      }
      r.pcOffset = data[i].pcOffset;
      for (size_t k = 0; k < instances; ++k) {
        const auto slot = slotOf.find(data[i].pInstanceValues[k].metricId);
        if (slot != slotOf.end()) r.values[slot->second] += data[i].pInstanceValues[k].value;
      }
      out.push_back(std::move(r));
    }
  }
  auto off = params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
  off.ctx = *ctx;
  disable.done = true;
  CUDALAB_CUPTI_TRY(cuptiSassMetricsDisable, off);
  return out;
}

Result<SourcePlace> sourcePlace(const std::string& cubin, const std::string& function,
                                std::uint64_t pcOffset) {
  const Cupti& c = cupti();
  if (!c.sassProblem.empty()) return Status::error(c.sassProblem);
  CUpti_GetSassToSourceCorrelationParams p{};
  p.size = CUpti_GetSassToSourceCorrelationParamsSize;
  p.cubin = cubin.data();
  p.cubinSize = cubin.size();
  p.functionName = function.c_str();
  p.pcOffset = pcOffset;
  const CUptiResult r = c.cuptiGetSassToSourceCorrelation(&p);
  SourcePlace place;
  if (p.fileName) {
    place.file = p.fileName;
    std::free(p.fileName);
  }
  if (p.dirName) std::free(p.dirName);
  if (r != CUPTI_SUCCESS)
    return Status::error(failureSentence(r, "cuptiGetSassToSourceCorrelation"));
  place.line = int(p.lineNumber);
  return place;
}

}  // namespace cudalab::counters
