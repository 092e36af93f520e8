// The reduction ladder's table, validation, launch plans and tree model: plain C++, no CUDA.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "models/memory_access.hpp"
#include "reduction/reduction.hpp"
#include "common/table.hpp"

namespace cudalab::reduction {

namespace {

long long ceilDiv(long long a, long long b) {
  return (a + b - 1) / b;
}

// clang-format off
const std::array<StepInfo, 11> kSteps{{
    {StepId::Interleaved, "interleaved", N_("1. Interleaved, divergent"), 1, Shape::Tree, 1, true, 5,
     N_("Harris's first kernel. Each thread loads one number into shared memory. Then, at stride "
     "s = 1, 2, 4, ..., thread tid adds slot tid + s into slot tid when tid % (2s) == 0. Only every "
     "other thread works at the first level, and the working threads are spread over every warp: "
     "each warp is divergent and runs the addition for a few lanes while the others wait. The % "
     "is a slow instruction too.")},
    {StepId::Strided, "strided", N_("2. Interleaved, strided index"), 2, Shape::Tree, 1, true, 1,
     N_("What was wrong: the working threads were scattered, so every warp diverged. Now thread tid "
     "works on slot index = 2 s tid: the working threads are the first ones, in whole warps, and "
     "no warp diverges until fewer than 32 threads work. But neighbouring lanes now touch slots "
     "2s apart: at s = 1 two lanes hit each bank (a 2-way bank conflict), and at s = 16 every "
     "working lane asks the same bank (8-way with 256 threads, 32-way with 1024).")},
    {StepId::Sequential, "sequential", N_("3. Sequential addressing"), 3, Shape::Tree, 1, true, 6,
     N_("What was wrong: slots 2s apart made bank conflicts. Now the stride starts at blockDim / 2 and "
     "halves: thread tid adds slot tid + s to slot tid, so a warp reads 32 consecutive slots, one "
     "per bank: no conflict. Still, half the threads stop working after they load their number.")},
    {StepId::FirstAdd, "first_add", N_("4. First add during load"), 4, Shape::Tree, 2, true, 2,
     N_("What was wrong: half the threads only loaded a number and then idled. Now each thread loads "
     "two numbers blockDim apart and adds them before storing: a block sums 2 x blockDim numbers, "
     "and half as many blocks do the same work.")},
    {StepId::UnrollLast, "unroll_last", N_("5. Last warp unrolled"), 5, Shape::Tree, 2, true, 0,
     N_("What was wrong: in the last six levels at most one warp works, yet each level still pays a "
     "__syncthreads barrier and the tid < s test. Once s <= 32, warp 0 finishes alone: all 32 of "
     "its lanes add at every level (the extra sums are never used) with no barrier and no branch. "
     "Harris's 2007 code relied on the lanes of a warp running in lockstep; since Volta they may "
     "not, so __syncwarp() separates each level's reads from its writes.")},
    {StepId::Unrolled, "unrolled", N_("6. Completely unrolled"), 6, Shape::Tree, 2, true, 4,
     N_("What was wrong: the loop over s still costs a compare, a shift and a branch per level. With "
     "the block size a template parameter the compiler knows every s: the loop disappears, and "
     "the levels a smaller block does not need vanish at compile time.")},
    {StepId::Multiple, "multiple", N_("7. Many elements per thread"), 7, Shape::GridStride, 2, true, 3,
     N_("What was wrong: with two numbers per thread, 2^27 numbers need 2^26 threads, and each thread "
     "does little more than start, load twice and run the whole tree for its block. Now the grid "
     "is just large enough to fill the GPU once and each thread loops over the array (grid-stride), "
     "adding hundreds of numbers in a register before one tree per block. A second launch of a "
     "single block adds the blocks' sums.")},
    {StepId::Shuffle, "shuffle", N_("Warp shuffles, 16-byte loads"), 0, Shape::GridStride, 0, false, 0,
     N_("Beyond Harris's 2007 ladder. __shfl_down_sync hands a register from one lane to another, so "
     "a warp turns its 32 numbers into one in 5 steps with no shared memory and no barrier; shared "
     "memory keeps one number per warp. Each thread reads 16 bytes per load (int4, float4, "
     "double2) and keeps four loads in flight, enough bytes moving to keep memory busy.")},
    {StepId::Atomic, "atomic", N_("One atomicAdd per block"), 0, Shape::Atomic, 0, false, 1,
     N_("The shuffle kernel, but each block's sum is added into the result with one atomicAdd "
     "instead of a second launch. One launch; the order in which blocks arrive changes from run to "
     "run, so a float sum may differ in its last bits from one run to the next.")},
    {StepId::Course, "course", N_("The course's kernel + CPU"), 0, Shape::Course, 1, false, 5,
     N_("The course's Numba kernel: blocks of 128 threads add in place in the input array itself, in "
     "global memory (sequential addressing, like step 3, without shared memory), and write one sum "
     "per block; the CPU adds the partial sums with np.sum, in NumPy's order. It overwrites its input, so each "
     "run here starts from a fresh copy. Its time includes copying the partial sums back and "
     "adding them on the CPU, as the course's timer did.")},
    {StepId::Cub, "cub", N_("CUB DeviceReduce::Sum"), 0, Shape::Library, 0, false, 7,
     N_("cub::DeviceReduce::Sum, NVIDIA's library reduction, tuned for each architecture: the "
     "reference every hand-written step is measured against.")},
}};
// clang-format on

constexpr StepId kAll[] = {StepId::Interleaved, StepId::Strided,    StepId::Sequential,
                           StepId::FirstAdd,    StepId::UnrollLast, StepId::Unrolled,
                           StepId::Multiple,    StepId::Shuffle,    StepId::Atomic,
                           StepId::Course,      StepId::Cub};
constexpr StepId kSweep[] = {StepId::Interleaved, StepId::Sequential, StepId::FirstAdd,
                             StepId::Unrolled,    StepId::Multiple,   StepId::Shuffle,
                             StepId::Atomic,      StepId::Cub};

bool powerOfTwo(long long v) {
  return v > 0 && (v & (v - 1)) == 0;
}

}  // namespace

constexpr EnumName<DataType> kTypeNames[] = {
    {DataType::Int32, "int32"}, {DataType::Float32, "float32"}, {DataType::Float64, "float64"}};

const char* typeLabel(DataType t) {
  return nameOf(kTypeNames, t);
}

int typeBytes(DataType t) {
  return t == DataType::Float64 ? 8 : 4;
}

std::optional<DataType> typeByLabel(const std::string& label) {
  return valueOf(kTypeNames, label);
}

const KeyedTable<StepInfo> kStepTable{kSteps};

std::vector<std::pair<std::string, double>> stepValues(const StepResult& s) {
  return {{"ms", s.ms},
          {"gbps", s.gbps},
          {"step_speedup", s.stepSpeedup},
          {"total_speedup", s.totalSpeedup},
          {"of_peak", s.ofPeak},
          {"of_cub", s.ofLibrary},
          {"sum", s.value},
          {"error", s.error},
          {"correct", s.ok ? 1.0 : 0.0}};
}

nlohmann::json toJson(const SweepPoint& p) {
  return {{"n", p.n}, {"step", stepInfo(p.step).key}, {"gbps", p.gbps}, {"correct", p.ok}};
}

bool handWritten(const StepInfo& s) {
  return s.shape != Shape::Library;
}

std::span<const StepId> allStepIds() {
  return kAll;
}

std::span<const StepId> sweepStepIds() {
  return kSweep;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Validation
// ---------------------------------------------------------------------------------------------

Status validate(const ReduceParams& p) {
  CUDALAB_TRY(checkRange(kCount, static_cast<double>(p.n)));
  CUDALAB_TRY(checkRange(kBlock, p.block));
  if (!powerOfTwo(p.block))
    return Status::errorf(
        N_("Threads per block must be a power of two (64, 128, 256, 512 or 1024): "
           "every level of the tree halves the threads that work, and %s cannot be halved down "
           "to one thread."),
        {std::to_string(p.block)});
  CUDALAB_TRY(checkRuns(p.warmup, p.runs));
  return {};
}

Status checkMemory(const ReduceParams& p, std::size_t freeDeviceBytes) {
  const double b = typeBytes(p.type);
  // The input, the course's scratch copy, two buffers of partial sums (at most N / 64 each) and
  // CUB's temporary storage with room to spare.
  const double need = 2.0 * double(p.n) * b + 2.0 * double(ceilDiv(p.n, 64)) * b + 64.0 * 1048576;
  if (need > double(freeDeviceBytes))
    return Status::errorf(
        N_("Summing %s %s numbers needs %s of device memory (the input, a copy "
           "for the course's kernel, which overwrites it, and the partial sums); "
           "%s is free. Choose a smaller N."),
        {thousands(p.n), typeLabel(p.type), mib(need), mib(double(freeDeviceBytes))});
  return {};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Launch plan
// ---------------------------------------------------------------------------------------------

long long Pass::perThread() const {
  return grid > 0 && block > 0 ? ceilDiv(n, grid * block) : 0;
}

int vectorWidth(DataType t) {
  return 16 / typeBytes(t);
}

std::vector<Pass> passPlan(StepId step, DataType type, long long n, int block,
                           long long residentBlocks) {
  const StepInfo& s = stepInfo(step);
  std::vector<Pass> plan;
  if (n < 1 || block < 1) return plan;
  const long long resident = std::max(1LL, residentBlocks);
  switch (s.shape) {
    case Shape::Tree: {
      // Each pass leaves one partial sum per block; the step runs again on those until one is
      // left (Harris's "recursive kernel invocation").
      const long long perBlock = 1LL * s.loadsPerThread * block;
      long long left = n;
      do {
        const long long grid = ceilDiv(left, perBlock);
        plan.push_back({left, grid, block});
        left = grid;
      } while (left > 1);
      break;
    }
    case Shape::GridStride:
    case Shape::Atomic: {
      const long long perThread =
          step == StepId::Multiple ? s.loadsPerThread : static_cast<long long>(vectorWidth(type));
      const long long grid = std::min(ceilDiv(n, perThread * block), resident);
      plan.push_back({n, grid, block});
      if (s.shape == Shape::GridStride && grid > 1) plan.push_back({grid, 1, block});
      break;
    }
    case Shape::Course:
      plan.push_back({n, ceilDiv(n, kCourseBlock), kCourseBlock});
      break;
    case Shape::Library:
      break;
  }
  return plan;
}

std::string describePlan(std::span<const Pass> plan, bool withBlock) {
  if (plan.empty()) return "chosen by the library";
  // "524,288 → 2,048 → 8 → 1 blocks of 256": one launch per arrow-separated grid.
  std::string out;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (i > 0) out += " \xe2\x86\x92 ";
    out += thousands(plan[i].grid);
  }
  if (!withBlock) return out;
  out += plan.back().grid == 1 && plan.size() == 1 ? " block of " : " blocks of ";
  return out + std::to_string(plan.front().block);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Tree model
// ---------------------------------------------------------------------------------------------

int TreeModel::totalDivergent() const {
  int t = 0;
  for (const TreeLevel& l : levels)
    t += l.divergentWarps;
  return t;
}
int TreeModel::totalWavefronts() const {
  int t = 0;
  for (const TreeLevel& l : levels)
    t += l.wavefronts;
  return t;
}
int TreeModel::barriers() const {
  int t = loadBarrier ? 1 : 0;
  for (const TreeLevel& l : levels)
    t += l.barrier ? 1 : 0;
  return t;
}

namespace {

// One level: `executes(tid)` says whether the thread runs the addition, `useful(tid)` whether its
// result is part of the sum, `dst(tid)`/`src(tid)` the slots it touches.
struct LevelSpec {
  int stride = 0;
  std::string what;
  bool barrier = false, shuffle = false, global = false;
  bool readsDst = true;  // the unrolled warp keeps its running sum in a register after level 1
};

template <class Exec, class Useful, class Dst, class Src>
TreeLevel makeLevel(const LevelSpec& spec, int block, int elementBytes, Exec executes,
                    Useful useful, Dst dst, Src src) {
  TreeLevel level;
  level.stride = spec.stride;
  level.what = spec.what;
  level.barrier = spec.barrier;
  level.shuffle = spec.shuffle;
  level.globalMemory = spec.global;
  for (int t = 0; t < block; ++t)
    if (useful(t)) level.ops.push_back({t, dst(t), src(t)});
  level.activeThreads = static_cast<int>(level.ops.size());
  const int warps = (block + mem::kWarpSize - 1) / mem::kWarpSize;
  for (int w = 0; w < warps; ++w) {
    WarpAtLevel wl;
    wl.warp = w;
    mem::WarpRequest readDst, readSrc;
    readDst.elementBytes = readSrc.elementBytes = elementBytes;
    readDst.activeMask = readSrc.activeMask = 0;
    int lanesInBlock = 0;
    for (int lane = 0; lane < mem::kWarpSize; ++lane) {
      const int t = w * mem::kWarpSize + lane;
      if (t >= block) break;
      ++lanesInBlock;
      if (!executes(t)) continue;
      ++wl.executing;
      if (useful(t)) ++wl.useful;
      readDst.address[lane] = static_cast<std::uint64_t>(dst(t)) * elementBytes;
      readSrc.address[lane] = static_cast<std::uint64_t>(src(t)) * elementBytes;
      readDst.activeMask |= 1u << lane;
      readSrc.activeMask |= 1u << lane;
    }
    if (wl.executing == 0) continue;
    wl.divergent = wl.executing < lanesInBlock;
    if (!spec.shuffle && !spec.global) {
      const mem::SharedAccess rs = mem::analyzeShared(readSrc);
      const mem::SharedAccess wd = mem::analyzeShared(readDst);  // the write: the same addresses
      wl.conflictDegree = std::max(rs.degree, wd.degree);
      wl.wavefronts = rs.wavefronts + wd.wavefronts + (spec.readsDst ? wd.wavefronts : 0);
    }
    level.divergentWarps += wl.divergent ? 1 : 0;
    level.worstConflict = std::max(level.worstConflict, wl.conflictDegree);
    level.wavefronts += wl.wavefronts;
    level.warps.push_back(wl);
  }
  return level;
}

std::string sText(int s) {
  return "s = " + std::to_string(s);
}

}  // namespace

Result<TreeModel> treeModel(StepId step, int block, DataType type) {
  const StepInfo& info = stepInfo(step);
  if (info.shape == Shape::Library)
    return Status::error(
        N_("CUB's reduction is a library call: how it arranges its additions "
           "inside is its own (and changes between versions), so there is no tree "
           "to draw."));
  const bool unrolledWarp =
      step == StepId::UnrollLast || step == StepId::Unrolled || step == StepId::Multiple;
  const bool shuffle = step == StepId::Shuffle || step == StepId::Atomic;
  const int minBlock = unrolledWarp || shuffle ? 64 : 32;
  if (!powerOfTwo(block) || block < minBlock || block > 1024)
    return Status::errorf(N_("The tree picture needs a power-of-two block from %s to 1024 threads "
                             "for this step; %s is not one."),
                          {std::to_string(minBlock), std::to_string(block)});
  TreeModel m;
  m.step = step;
  m.block = block;
  m.slots = block;
  m.elementBytes = typeBytes(type);
  m.loadBarrier = info.sharedTree;
  const int eb = m.elementBytes;
  switch (step) {
    case StepId::Unrolled:
      m.note =
          N_("The same tree as step 5: what changed is the code. The block size is a template "
             "parameter, so there is no loop counter, no compare and no branch per level.");
      break;
    case StepId::Multiple:
      m.note =
          N_("The same tree as step 6, once per block: before it, each thread added hundreds "
             "of numbers in a register, so the whole array needs only one such tree per block "
             "plus one for the blocks' sums.");
      break;
    case StepId::Atomic:
      m.note =
          N_("The same block sum as the shuffle step; then thread 0 adds it into the result "
             "with one atomicAdd instead of writing it for a second launch.");
      break;
    case StepId::Course:
      m.note =
          N_("Sequential addressing like step 3, but every read and write goes to global memory "
             "(through the caches), and the numbers summed are overwritten.");
      break;
    default:
      break;
  }
  auto all = [](int) { return true; };
  auto self = [](int t) { return t; };

  switch (step) {
    case StepId::Interleaved:
      m.load = N_("slot[tid] = x[i], one number per thread");
      for (int s = 1; s < block; s *= 2) {
        auto works = [s](int t) { return t % (2 * s) == 0; };
        m.levels.push_back(makeLevel({s,
                                      sText(s) + ": threads with tid % " + std::to_string(2 * s) +
                                          " == 0 add slot tid + " + std::to_string(s),
                                      true},
                                     block, eb, works, works, self, [s](int t) { return t + s; }));
      }
      break;
    case StepId::Strided:
      m.load = N_("slot[tid] = x[i], one number per thread");
      for (int s = 1; s < block; s *= 2) {
        auto works = [s, block](int t) { return 2 * s * t < block; };
        m.levels.push_back(makeLevel(
            {s,
             sText(s) + ": threads tid < " + std::to_string(block / (2 * s)) + " add slot " +
                 std::to_string(2 * s) + " tid + " + std::to_string(s) + " to slot " +
                 std::to_string(2 * s) + " tid",
             true},
            block, eb, works, works, [s](int t) { return 2 * s * t; },
            [s](int t) { return 2 * s * t + s; }));
      }
      break;
    case StepId::Sequential:
    case StepId::FirstAdd:
    case StepId::Course:
    case StepId::UnrollLast:
    case StepId::Unrolled:
    case StepId::Multiple: {
      const bool global = step == StepId::Course;
      if (step == StepId::Sequential)
        m.load = N_("slot[tid] = x[i], one number per thread");
      else if (global)
        m.load =
            N_("nothing is loaded: the block's numbers are added where they are, in the input "
               "array in global memory");
      else if (step == StepId::Multiple)
        m.load =
            N_("slot[tid] = the thread's sum of x[i] + x[i + blockDim] for i += 2 blockDim "
               "gridDim (grid-stride)");
      else
        m.load = N_("slot[tid] = x[i] + x[i + blockDim], two numbers per thread");
      const int last = unrolledWarp ? 32 : 0;
      for (int s = block / 2; s > last; s /= 2) {
        auto works = [s](int t) { return t < s; };
        m.levels.push_back(makeLevel({s,
                                      sText(s) + ": threads tid < " + std::to_string(s) +
                                          " add slot tid + " + std::to_string(s),
                                      true, false, global},
                                     block, eb, works, works, self, [s](int t) { return t + s; }));
      }
      if (unrolledWarp) {
        for (int s = 32; s >= 1; s /= 2) {
          auto lanes = [](int t) { return t < 32; };
          auto useful = [s](int t) { return t < s; };
          LevelSpec spec{s,
                         sText(s) + ": warp 0 alone, all 32 lanes add slot tid + " +
                             std::to_string(s) + " (lanes " + std::to_string(s) +
                             " and up add numbers nobody uses); __syncwarp, no barrier",
                         false};
          spec.readsDst = s == 32;
          m.levels.push_back(
              makeLevel(spec, block, eb, lanes, useful, self, [s](int t) { return t + s; }));
        }
      }
      break;
    }
    case StepId::Shuffle:
    case StepId::Atomic: {
      m.load = N_("each thread's register = its sum of 16-byte loads (grid-stride)");
      for (int off = 16; off >= 1; off /= 2) {
        auto useful = [off](int t) { return t % 32 < off; };
        LevelSpec spec{off,
                       "offset " + std::to_string(off) +
                           ": every lane adds the register of lane + " + std::to_string(off) +
                           " of its warp (__shfl_down_sync)",
                       false, true};
        spec.barrier = off == 1 && block > 32;  // the warps' sums meet in shared memory
        m.levels.push_back(
            makeLevel(spec, block, eb, all, useful, self, [off](int t) { return t + off; }));
      }
      // Lane 0 of each warp writes its sum to shared memory (slot 32 w in the picture); after a
      // barrier warp 0 reads them and shuffles log2(warps) more times.
      const int warps = block / 32;
      for (int off = warps / 2; off >= 1; off /= 2) {
        auto lanes = [](int t) { return t < 32; };
        auto useful = [off](int t) { return t < off; };
        LevelSpec spec{32 * off,
                       "warp 0, offset " + std::to_string(off) + ": lane l adds warp l + " +
                           std::to_string(off) + "'s sum (read from shared memory once)",
                       false, true};
        m.levels.push_back(makeLevel(
            spec, block, eb, lanes, useful, [](int t) { return 32 * t; },
            [off](int t) { return 32 * (t + off); }));
      }
      break;
    }
    case StepId::Cub:
      break;
  }
  return m;
}

}  // namespace cudalab::reduction
