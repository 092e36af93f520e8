// The playground's launches: the run parameters an exercise starts with, the grid a launch gets,
// the validation that refuses a launch with a sentence that teaches, and the bytes and flops the
// rates follow from. Plain C++: the worker, the panel and the tests share it.
#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "launch_config/launch_config.hpp"
#include "playground/playground.hpp"

namespace cudalab::playground {

using namespace launch_config;

namespace {

long long ceilDivLL(long long a, long long b) {
  return b > 0 ? (a + b - 1) / b : 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Run
// ---------------------------------------------------------------------------------------------

RunParams defaultRunParams(const Exercise& e) {
  RunParams p;
  p.exercise = e.id;
  p.n = e.defaultN;
  p.bins = e.defaultBins > 0 ? e.defaultBins : 10;
  p.launch = e.defaultLaunch;
  p.autoGrid = e.autoGrid;
  p.runs = static_cast<int>(kRunsSpec.defaultValue);
  p.timeoutSeconds = kTimeoutSpec.defaultValue;
  return p;
}

Launch launchFor(const Exercise& e, const RunParams& p) {
  Launch l = p.launch;
  if (!p.autoGrid) return l;
  if (gridOverMatrix(e.kind)) {
    l.grid = {ceilDivLL(p.n, l.block.x), ceilDivLL(p.n, l.block.y), 1};
  } else if (e.kind == Kind::Softmax) {
    l.grid = {p.n, 1, 1};  // one block per row
  } else if (e.kind == Kind::Wmma) {
    // One warp per 16 x 16 tile of the padded C; a block of several warps takes as many
    // neighbouring tiles along a row (blocks of one warp, the exercise's, take one).
    const long long tiles = paddedSide(e.kind, p.n) / kWmmaTile;
    const long long warps = std::max(1LL, l.block.count() / 32);
    l.grid = {ceilDivLL(tiles, warps), tiles, 1};
  } else if (e.kind == Kind::Counter) {
    // Nothing to cover: the grid is the learner's.
  } else {
    l.grid = {ceilDivLL(p.n, l.block.count()), 1, 1};
  }
  return l;
}

namespace {

long long outputElements(const Exercise& e, const RunParams& p, const Launch& l) {
  switch (e.kind) {
    case Kind::Map:
    case Kind::Elementwise:
      return p.n;
    case Kind::Counter:
      return 1;
    case Kind::Histogram:
      return p.bins;
    case Kind::Matmul:
    case Kind::Transpose:
    case Kind::Softmax:
      return p.n * p.n;
    case Kind::Wmma:
      return paddedSide(e.kind, p.n) * paddedSide(e.kind, p.n);  // the padded C
    case Kind::Reduce:
      return l.grid.x;
  }
  return p.n;
}

// launch_config's sentence about a block that is too large, with the block's own sizes after it.
// The formats repeat launch_config's two sentences (blockTooLargePhrase) so that the whole text
// translates as one; if they ever drift apart, the English sentence goes out as it is.
Status blockTooLarge(long long threads, long long maxThreads, const Dim3& block) {
  const Phrase phrase = blockTooLargePhrase(threads, maxThreads);
  const std::string english = phrase.english() + " (Here the block is " + thousands(block.x) +
                              " x " + thousands(block.y) + " x " + thousands(block.z) + ".)";
  const char* format =
      maxThreads == 1024
          ? N_("A block can have at most 1,024 threads on every GPU since compute capability "
               "2.0: the threads of a block run on one SM, share its registers and synchronise "
               "together, and the hardware tracks at most that many. A block of %s threads would "
               "need %s blocks of %s: choose %s or fewer threads per block and let the grid have "
               "more blocks. (Here the block is %s x %s x %s.)")
          : N_("This GPU allows at most %s threads per block (1,024 on every GPU since compute "
               "capability 2.0): the threads of a block run on one SM, share its registers and "
               "synchronise together, and the hardware tracks at most that many. A block of %s "
               "threads would need %s blocks of %s: choose %s or fewer threads per block and let "
               "the grid have more blocks. (Here the block is %s x %s x %s.)");
  std::vector<std::string> values = phrase.values;
  for (long long v : {block.x, block.y, block.z})
    values.push_back(thousands(v));
  if (fillFormat(format, values) != english) return Status::error(english);
  return Status::errorf(format, std::move(values));
}

}  // namespace

long long guardElements(long long outputElements, long long threads) {
  return std::clamp(threads - outputElements, 0LL, 1LL << 24) + 4096;
}

std::size_t deviceBytes(const Exercise& e, const RunParams& p) {
  const Launch l = launchFor(e, p);
  // Saturated: the guard zone stops growing at 2^24 elements anyway.
  const double t = static_cast<double>(l.grid.x) * static_cast<double>(l.grid.y) *
                   static_cast<double>(l.grid.z) * static_cast<double>(l.block.count());
  const long long threads = t > 1e15 ? (1LL << 50) : static_cast<long long>(t);
  const long long out = outputElements(e, p, l);
  const long long outAlloc = out + guardElements(out, threads);
  long long bytes = 0;
  switch (e.kind) {
    case Kind::Map: {
      const long long inputs = e.op == MapOp::Double ? 1 : 2;
      // Inputs carry the same guard zone (reads past the end find poison), plus the built-in
      // and library comparisons' output.
      bytes = 4 * (inputs * outAlloc + outAlloc + p.n);
      break;
    }
    case Kind::Counter:
      bytes = 4 * outAlloc;
      break;
    case Kind::Histogram:
      bytes = 4 * (p.n + guardElements(p.n, threads) + 2 * outAlloc) + (1 << 20);
      break;
    case Kind::Elementwise:
      bytes = 12 * (p.n + guardElements(p.n, threads)) * 2;
      break;
    case Kind::Matmul:
      bytes = 4 * (3 * outAlloc);
      break;
    case Kind::Transpose:
    case Kind::Softmax:
      bytes = 4 * (2 * outAlloc);
      break;
    case Kind::Wmma: {
      // A and B in half with zeros after them, C in float with its guard zone, each as far as a
      // warp's tiles reach past the end (wmmaGuardElements).
      const long long guard = wmmaGuardElements(out, threads);
      bytes = 2 * 2 * (out + guard) + 4 * (out + guard);
      break;
    }
    case Kind::Reduce:
      bytes = 4 * (p.n + guardElements(p.n, threads) + outAlloc) + (1 << 20);
      break;
  }
  // The guard zones before each array, and what the comparisons allocate: the matmul lesson's
  // three matrices, the reduction lesson's input and partial sums.
  bytes += 3 * 4096 * 8;
  if (p.compare && e.kind == Kind::Matmul) bytes += 4 * 3 * p.n * p.n;
  if (p.compare && (e.kind == Kind::Transpose || e.kind == Kind::Softmax)) bytes += 4 * p.n * p.n;
  if (p.compare && e.kind == Kind::Wmma) {
    // The tensor-cores lesson's runner: its operands padded to 256, in three formats, and C.
    const long long side = (p.n + 255) / 256 * 256;
    bytes += (2 + 2 + 4) * 2 * side * side + 4 * side * side;
  }
  if (p.compare && e.kind == Kind::Reduce) bytes += 8 * p.n + (64 << 20);
  return static_cast<std::size_t>(bytes);
}

Status validate(const Exercise& e, const RunParams& p, const GpuLimits& limits) {
  if (e.kind != Kind::Counter && (p.n < e.minN || p.n > e.maxN))
    return Status::errorf(
        N_("N must be between %s and %s for this exercise; %s is outside that range."),
        {thousands(e.minN), thousands(e.maxN), thousands(p.n)});
  if (e.kind == Kind::Histogram) CUDALAB_TRY(checkRange(kBinsSpec, p.bins));
  CUDALAB_TRY(checkRange(kRunsSpec, p.runs));
  CUDALAB_TRY(checkRange(kTimeoutSpec, p.timeoutSeconds));
  const Launch l = launchFor(e, p);
  const char* axis[] = {"x", "y", "z"};
  const long long block[] = {l.block.x, l.block.y, l.block.z};
  const long long grid[] = {l.grid.x, l.grid.y, l.grid.z};
  for (int a = 0; a < 3; ++a) {
    if (block[a] < 1 || grid[a] < 1)
      return Status::errorf(N_("The block and the grid need at least 1 in every direction; %s "
                               "has %s. A launch of zero threads does nothing."),
                            {axis[a], thousands(std::min(block[a], grid[a]))});
  }
  for (int a = 0; a < 3; ++a)
    if (block[a] > 2048 || grid[a] > (1LL << 32))
      return Status::error(
          "That launch is far beyond what any GPU takes: a block has at most "
          "1,024 threads and a grid at most 2^31 - 1 blocks in x.");
  const long long threads = l.block.count();
  if (threads > limits.maxThreadsPerBlock)
    return blockTooLarge(threads, limits.maxThreadsPerBlock, l.block);
  for (int a = 0; a < 3; ++a) {
    if (block[a] > limits.maxBlock[a])
      return Status::errorf(N_("A block can be at most %s threads long in %s, and this one asks "
                               "for %s. Spread the threads over x and y instead (z is the "
                               "shortest)."),
                            {thousands(limits.maxBlock[a]), axis[a], thousands(block[a])});
    if (grid[a] > limits.maxGrid[a])
      return Status::errorf(
          a == 0 ? N_("A grid can have at most %s blocks in %s on this GPU, and this launch asks "
                      "for %s. Use fewer blocks: a grid-stride loop covers any N with a few "
                      "blocks per SM.")
                 : N_("A grid can have at most %s blocks in %s on this GPU, and this launch asks "
                      "for %s. Put the long direction in x, which allows 2^31 - 1 blocks."),
          {thousands(limits.maxGrid[a]), axis[a], thousands(grid[a])});
  }
  // Products of sizes that each pass can still be absurd: 2^31 x 65,535 x 65,535 blocks.
  const double total = static_cast<double>(l.grid.x) * static_cast<double>(l.grid.y) *
                       static_cast<double>(l.grid.z) * static_cast<double>(threads);
  if (total > static_cast<double>(1LL << 40))
    return Status::errorf(N_("This launch has %s threads: more than a trillion, which would take "
                             "hours. Use a smaller grid; a grid-stride loop covers any N with a "
                             "few blocks per SM."),
                          {trimmedFixed(total, 0)});
  if (e.kind == Kind::Counter && total > 2147483647.0)
    return Status::error(
        "The counter is an int: more than 2,147,483,647 threads would overflow "
        "it even when every addition is counted. Launch fewer threads.");
  const std::size_t need = deviceBytes(e, p);
  if (need > limits.freeBytes / 10 * 9)
    return Status::errorf(
        N_("This run needs %s of device memory (inputs, the output with its "
           "guard zone, and the comparisons) and %s are free. Choose a smaller "
           "N."),
        {mib(static_cast<double>(need)), mib(static_cast<double>(limits.freeBytes))});
  return {};
}

LaunchNumbers launchNumbers(const Exercise& e, const RunParams& p, int registersPerThread,
                            long long staticShared, const SmModel& sm, int smCount) {
  LaunchNumbers ln;
  const Launch l = launchFor(e, p);
  // Only launches validate() could accept are counted (no overflow for absurd sizes).
  const double total = static_cast<double>(l.grid.x) * static_cast<double>(l.grid.y) *
                       static_cast<double>(l.grid.z) * static_cast<double>(l.block.count());
  if (!(total <= static_cast<double>(1LL << 40)) || l.block.x < 1 || l.block.y < 1 ||
      l.block.z < 1 || l.grid.x < 1 || l.grid.y < 1 || l.grid.z < 1 || l.block.count() > 4096)
    return ln;
  ln.threadsPerBlock = l.block.count();
  ln.blocks = l.grid.count();
  ln.threads = ln.blocks * ln.threadsPerBlock;
  const long long warpsPerBlock = ceilDivLL(ln.threadsPerBlock, 32);
  ln.warps = ln.blocks * warpsPerBlock;
  ln.emptyLanes = ln.warps * 32 - ln.threads;
  ln.work = gridOverMatrix(e.kind)    ? p.n * p.n
            : e.kind == Kind::Wmma    ? std::min(ln.threads, p.n * p.n)
            : e.kind == Kind::Softmax ? std::min(ln.threads, p.n * p.n)
            : e.kind == Kind::Counter ? ln.threads
                                      : p.n;
  ln.idleThreads = std::max(0LL, ln.threads - ln.work);
  ln.occupancy = blockOccupancy(static_cast<int>(std::min<long long>(ln.threadsPerBlock, 1 << 20)),
                                registersPerThread, staticShared, sm);
  ln.smCount = smCount;
  ln.residentBlocks = static_cast<long long>(ln.occupancy.blocksPerSM) * smCount;
  if (ln.residentBlocks > 0 && ln.blocks > 0) {
    ln.waves = ceilDivLL(ln.blocks, ln.residentBlocks);
    ln.tailFraction = static_cast<double>(ln.blocks - (ln.waves - 1) * ln.residentBlocks) /
                      static_cast<double>(ln.residentBlocks);
  }
  return ln;
}

Status checkRegisters(const Exercise& e, const RunParams& p, int registers, const SmModel& sm) {
  if (registers <= 0) return {};
  const long long threads = launchFor(e, p).block.count();
  if (threads <= 0 || threads > 1024) return {};
  const BlockOccupancy o = blockOccupancy(static_cast<int>(threads), registers, 0, sm);
  if (o.byRegisters > 0) return {};
  // The largest block whose warps' registers fit on one SM.
  const long long perWarp = (static_cast<long long>(registers) * 32 + sm.registerUnit - 1) /
                            sm.registerUnit * sm.registerUnit;
  const long long maxThreads = std::min<long long>(1024, sm.registersPerSM / perWarp * 32);
  return Status::errorf(
      N_("This kernel uses %s registers per thread, so a block of %s threads needs %s registers, "
         "and one SM has %s: the GPU would refuse the launch (\"too many resources requested\"). "
         "Use blocks of at most %s threads, or make the kernel use fewer registers."),
      {std::to_string(registers), thousands(threads), thousands(o.registersPerBlock),
       thousands(sm.registersPerSM), thousands(maxThreads)});
}

double exerciseBytes(const Exercise& e, const RunParams& p) {
  const double n = static_cast<double>(p.n);
  switch (e.kind) {
    case Kind::Map:
      return 4 * n * (e.op == MapOp::Double ? 2 : 3);
    case Kind::Counter:
      return 8;
    case Kind::Histogram:
      return 4 * n + 4.0 * p.bins;
    case Kind::Elementwise:
      return 8 * n;  // float32: read and write one float per element
    case Kind::Matmul:
      return 4 * 3 * n * n;  // each matrix once: the least any kernel moves
    case Kind::Reduce:
      return 4 * n;
    case Kind::Transpose:
    case Kind::Softmax:
      return 8 * n * n;  // read once, written once
    case Kind::Wmma:
      return 2 * 2 * n * n + 4 * n * n;  // A and B in half once, C in float once
  }
  return 0;
}

double exerciseFlops(const Exercise& e, const RunParams& p) {
  const double n = static_cast<double>(p.n);
  switch (e.kind) {
    case Kind::Map:
      return e.op == MapOp::Hypot ? 3 * n : n;
    case Kind::Counter:
      return 0;
    case Kind::Histogram:
      return 2 * n;
    case Kind::Elementwise:
      return 4 * n;
    case Kind::Matmul:
      return 2 * n * n * n;
    case Kind::Reduce:
      return n;
    case Kind::Transpose:
      return 0;
    case Kind::Softmax:
      return 4 * n * n;  // a comparison, a subtraction, an exponential and a division per score
    case Kind::Wmma:
      return 2 * n * n * n;
  }
  return 0;
}

std::string Comparison::note() const {
  std::vector<std::string> clauses;
  if (!failure.empty()) clauses.push_back("could not run: " + failure.english());
  if (!how.empty()) clauses.push_back(how);
  if (outputs == Outputs::Identical) clauses.push_back("outputs identical to yours, bit for bit");
  if (outputs == Outputs::Differ)
    clauses.push_back(thousands(differing) + " elements differ from yours");
  if (outputs == Outputs::Unreadable) clauses.push_back("could not be read back");
  std::string out;
  for (const std::string& c : clauses)
    out += (out.empty() ? "" : "; ") + c;
  return out;
}

}  // namespace cudalab::playground
