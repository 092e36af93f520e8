// CUPTI's PC sampling around one piece of work (pc_sampling.hpp).
#include "counters/pc_sampling.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/translatable.hpp"
#include "counters/counters.hpp"
#include "counters/cupti_loader.hpp"

namespace cudalab::counters {

std::uint64_t StallRecord::total() const {
  std::uint64_t n = 0;
  for (const auto& [reason, count] : samples)
    n += count;
  return n;
}

namespace {

// CUPTI's PC sampling structs carry `size` rather than `structSize` (params() in cupti_loader.hpp).
template <class P>
P sized(size_t size) {
  P p{};
  p.size = size;
  return p;
}

// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard".
std::string shortName(std::string_view name) {
  for (std::string_view prefix : {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_"})
    if (name.substr(0, prefix.size()) == prefix) return std::string(name.substr(prefix.size()));
  return std::string(name);
}

// Enough for every instruction of a learner's kernel (the largest solution has a few hundred).
constexpr size_t kMaxPcs = 16384;

// A buffer CUPTI fills with parsed samples: one entry per instruction sampled, each with room
// for every reason asked for. Not to be copied: `data` points into its own vectors.
struct SampleBuffer {
  explicit SampleBuffer(size_t reasons) : slots(kMaxPcs * reasons), pcs(kMaxPcs) {
    for (size_t k = 0; k < kMaxPcs; ++k) {
      pcs[k].size = sizeof(CUpti_PCSamplingPCData);
      pcs[k].stallReason = &slots[k * reasons];
    }
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = kMaxPcs;
    data.pPcData = pcs.data();
  }
  SampleBuffer(const SampleBuffer&) = delete;
  SampleBuffer& operator=(const SampleBuffer&) = delete;
  std::vector<CUpti_PCSamplingStallReason> slots;
  std::vector<CUpti_PCSamplingPCData> pcs;
  CUpti_PCSamplingData data{};
};

}  // namespace

Result<StallSamples> samplePcs(const std::function<Status()>& work) {
  const Cupti& c = cupti();
  if (!c.pcProblem.empty()) return Status::error(c.pcProblem);
  std::lock_guard<std::mutex> lock(profilerMutex());
  Result<CUcontext> ctx = currentContext();
  if (!ctx) return ctx.status();

  // PC sampling on first: CUPTI names the stall reasons only for a context sampling (the
  // queries below fail with CUPTI_ERROR_INVALID_OPERATION before, measured on an H200).
  auto enable = sized<CUpti_PCSamplingEnableParams>(CUpti_PCSamplingEnableParamsSize);
  enable.ctx = *ctx;
  CUDALAB_CUPTI_TRY(cuptiPCSamplingEnable, enable);
  struct Disable {
    const Cupti& c;
    CUcontext ctx;
    bool done = false;
    CUptiResult now() {
      done = true;
      auto p = sized<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize);
      p.ctx = ctx;
      return c.cuptiPCSamplingDisable(&p);
    }
    ~Disable() {
      if (!done) now();
    }
  } disable{c, *ctx};

  // The stall reasons this GPU samples; the "_not_issued" twins (the same reasons counted only
  // for samples whose warp issued nothing) are left out, as Nsight Compute's "All Samples" does.
  size_t count = 0;
  auto num =
      sized<CUpti_PCSamplingGetNumStallReasonsParams>(CUpti_PCSamplingGetNumStallReasonsParamsSize);
  num.ctx = *ctx;
  num.numStallReasons = &count;
  CUDALAB_CUPTI_TRY(cuptiPCSamplingGetNumStallReasons, num);
  std::vector<std::uint32_t> index(count);
  std::vector<std::vector<char>> names(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> namePtrs(count);
  for (size_t i = 0; i < count; ++i)
    namePtrs[i] = names[i].data();
  auto get =
      sized<CUpti_PCSamplingGetStallReasonsParams>(CUpti_PCSamplingGetStallReasonsParamsSize);
  get.ctx = *ctx;
  get.numStallReasons = count;
  get.stallReasonIndex = index.data();
  get.stallReasons = namePtrs.data();
  CUDALAB_CUPTI_TRY(cuptiPCSamplingGetStallReasons, get);
  StallSamples out;
  std::vector<std::uint32_t> chosen;
  std::map<std::uint32_t, int> slotOf;
  for (size_t i = 0; i < count; ++i) {
    const std::string_view name(namePtrs[i]);
    if (name.size() >= 11 && name.substr(name.size() - 11) == "_not_issued") continue;
    // Not reasons: the counts of samples taken and dropped, which CUPTI lists beside them.
    if (name.find("sample") != std::string_view::npos) continue;
    slotOf[index[i]] = static_cast<int>(out.reasons.size());
    out.reasons.push_back(shortName(name));
    chosen.push_back(index[i]);
  }
  if (chosen.empty()) return Status::error(N_("This GPU reports no stall reasons to sample."));

  // Two buffers CUPTI fills: `flushed` for cuptiPCSamplingGetData, which flushes what the kernels
  // left after they end, and `data`, where disabling sampling puts what is left.
  SampleBuffer data(chosen.size()), flushed(chosen.size());

  std::vector<CUpti_PCSamplingConfigurationInfo> info(5);
  info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  info[0].attributeData.stallReasonData.stallReasonCount = chosen.size();
  info[0].attributeData.stallReasonData.pStallReasonIndex = chosen.data();
  info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  info[1].attributeData.samplingDataBufferData.samplingDataBuffer = &data.data;
  info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  info[2].attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  // Kernels one at a time: every sample belongs to the kernel the work launched.
  info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  info[3].attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
  // Every 2^9 = 512 cycles per SM sub-partition: a kernel of 10 microseconds on 132 SMs still
  // gets thousands of samples (CUPTI's default, set from the number of SMs, gave the tiled
  // product none on an H200).
  info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  info[4].attributeData.samplingPeriodData.samplingPeriod = 9;
  auto config =
      sized<CUpti_PCSamplingConfigurationInfoParams>(CUpti_PCSamplingConfigurationInfoParamsSize);
  config.ctx = *ctx;
  config.numAttributes = info.size();
  config.pPCSamplingConfigurationInfo = info.data();
  CUDALAB_CUPTI_TRY(cuptiPCSamplingSetConfigurationAttribute, config);

  const Status ran = work();
  if (!ran) return ran;
  CUDALAB_CUDA_TRY(cudaDeviceSynchronize());
  // The kernel has ended: its samples are flushed into `flushed`; disabling sampling puts what
  // is left into `data`. Both are parsed, the same instruction's samples added.
  auto flush = sized<CUpti_PCSamplingGetDataParams>(CUpti_PCSamplingGetDataParamsSize);
  flush.ctx = *ctx;
  flush.pcSamplingData = &flushed.data;
  CUDALAB_CUPTI_TRY(cuptiPCSamplingGetData, flush);
  if (const CUptiResult r = disable.now(); r != CUPTI_SUCCESS)
    return Status::error(failureSentence(r, "cuptiPCSamplingDisable"));
  std::map<std::pair<std::string, std::uint64_t>, std::map<int, std::uint64_t>> byPc;
  for (CUpti_PCSamplingData* d : {&flushed.data, &data.data}) {
    out.nonUserSamples += d->nonUsrKernelsTotalSamples;
    out.bufferFull = out.bufferFull || d->hardwareBufferFull;
    out.pcs += d->totalNumPcs;
    out.totalSamples += d->totalSamples;
    out.droppedSamples += d->droppedSamples;
    for (size_t k = 0; k < d->totalNumPcs && k < kMaxPcs; ++k) {
      CUpti_PCSamplingPCData& pc = d->pPcData[k];
      const std::uint64_t offset = pc.pcOffset;  // a copy: the struct is packed
      std::string function;
      // CUPTI keeps the name (freeing it aborted the worker with glibc's "invalid pointer").
      if (pc.functionName) function = pc.functionName;
      // Each instruction has room for the reasons asked for, whatever CUPTI's count says.
      const size_t reasons = std::min<size_t>(pc.stallReasonCount, chosen.size());
      for (size_t s = 0; s < reasons; ++s) {
        const auto slot = slotOf.find(pc.stallReason[s].pcSamplingStallReasonIndex);
        const std::uint32_t taken = pc.stallReason[s].samples;  // a copy: the struct is packed
        if (slot != slotOf.end() && taken > 0) byPc[{function, offset}][slot->second] += taken;
      }
    }
  }
  for (const auto& [key, reasons] : byPc) {
    StallRecord r{key.first, key.second, 0, {}};
    for (const auto& [reason, n] : reasons)
      r.samples.push_back({reason, static_cast<std::uint32_t>(n)});
    out.records.push_back(std::move(r));
  }
  return out;
}

const StallText* stallText(const std::string& reason) {
  // The reasons Hopper's sampler reports, in CUPTI's words without its prefix; the labels fit a
  // table cell, the meanings a tooltip.
  static constexpr StallText kTexts[] = {
      {"long_scoreboard", N_("global memory"),
       N_("waiting for data from global or local memory (a load that went to L2 or DRAM)")},
      {"barrier", N_("__syncthreads()"),
       N_("waiting at __syncthreads() for the other warps of the block")},
      {"short_scoreboard", N_("shared memory"),
       N_("waiting for shared memory, or a special function (exp, sqrt, division)")},
      {"mio_throttle", N_("shared memory queue"),
       N_("the queue to shared memory and the special functions is full")},
      {"lg_throttle", N_("global memory queue"),
       N_("the queue to global and local memory is full: too many loads at once")},
      {"math_pipe_throttle", N_("math unit busy"),
       N_("the math unit this instruction needs is busy")},
      {"wait", N_("fixed wait"),
       N_("a fixed wait the compiler scheduled after the previous instruction")},
      {"not_selected", N_("another warp issued"),
       N_("ready, but the scheduler issued another warp's instruction")},
      {"selected", N_("issuing"), N_("issuing: the scheduler chose this warp (not a stall)")},
      {"branch_resolving", N_("branch"), N_("waiting for a branch's target to be known")},
      {"dispatch_stall", N_("dispatch"), N_("the dispatcher could not send the instruction on")},
      {"no_instructions", N_("instruction fetch"),
       N_("waiting for instructions to be fetched (instruction cache)")},
      {"membar", N_("memory fence"), N_("waiting at a memory fence")},
      {"drain", N_("draining writes"),
       N_("waiting for its memory writes to leave before the warp exits")},
      {"sleeping", N_("sleeping"), N_("asleep (nanosleep, or a warp that has finished)")},
      {"tex_throttle", N_("texture queue"), N_("the texture unit's queue is full")},
      {"imc_miss", N_("constant cache"),
       N_("waiting for a constant (kernel parameter) not in the constant cache")},
      {"warpgroup_arrive", N_("warpgroup arrive"),
       N_("waiting at a warpgroup's arrive for its other warps (before a wgmma)")},
      {"misc", N_("other"), N_("another reason the hardware does not name")},
  };
  for (const StallText& t : kTexts)
    if (reason == t.reason) return &t;
  return nullptr;
}

int StallTotals::top() const {
  int best = -1;
  for (std::size_t i = 0; i < byReason.size(); ++i)
    if (byReason[i] > 0 && (best < 0 || byReason[i] > byReason[std::size_t(best)]))
      best = static_cast<int>(i);
  return best;
}

void StallTotals::add(const StallRecord& r) {
  for (const auto& [reason, n] : r.samples)
    if (reason >= 0 && std::size_t(reason) < byReason.size()) {
      byReason[std::size_t(reason)] += n;
      total += n;
    }
}

StallTotals stallTotals(std::span<const StallRecord> records, std::size_t reasons) {
  StallTotals t(reasons);
  for (const StallRecord& r : records)
    t.add(r);
  return t;
}

}  // namespace cudalab::counters
