// The launch-config lesson's pure side: variants, the launch shape, validation, warnings,
// occupancy and the "what to conclude" paragraph. No CUDA call: everything here runs and is tested
// without a GPU.
//
// [SECTION] Formatting
// [SECTION] Variants and description
// [SECTION] Shape
// [SECTION] Validation and warnings
// [SECTION] Occupancy and conclusion
// [SECTION] Sweeps
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "launch_config/launch_config.hpp"
#include "common/table.hpp"

namespace cudalab::launch_config {

// ---------------------------------------------------------------------------------------------
// [SECTION] Formatting
// ---------------------------------------------------------------------------------------------

namespace {

// 30000000 -> "30,000,000": counts in sentences are read, not parsed.
std::string num(long long v) {
  const bool negative = v < 0;
  std::string digits = std::to_string(negative ? -v : v);
  std::string out;
  const size_t len = digits.size();
  for (size_t i = 0; i < len; ++i) {
    if (i > 0 && (len - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", fraction * 100.0);
  return buf;
}

long long ceilDiv(long long a, long long b) {
  return (a + b - 1) / b;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Variants and description
// ---------------------------------------------------------------------------------------------

namespace {

constexpr LaunchVariant kLaunchVariants[] = {
    {"1d_guarded", N_("1D, guarded"),
     N_("One thread per element: i = blockIdx.x * blockDim.x + threadIdx.x, and `if (i < n)` stops "
        "the threads of the last block that fall past the end. The course's first kernel with the "
        "check it needs."),
     false, true, false},
    {"1d_unguarded", N_("1D, no guard"),
     N_("The same without `if (i < n)`: when the grid has more threads than elements, the extra "
        "threads write past the end of the array. Here they land in a canary zone and are counted; "
        "in a real program they overwrite other data or crash with an illegal address."),
     false, false, false},
    {"1d_grid_stride", N_("1D, grid-stride loop"),
     N_("Each thread starts at its own index and steps by the size of the whole grid "
        "(gridDim.x * blockDim.x) while i < n, so any grid covers any N. Lets the grid be sized "
        "for "
        "the GPU (a few blocks per SM) instead of for the data."),
     false, true, true},
    {"2d_guarded", N_("2D, guarded"),
     N_("The array seen as a picture width elements wide: x along a row, y down the rows, element "
        "y * width + x, and `if (x < width && y < height)`. The way images and matrices are "
        "indexed."),
     true, true, false},
    {"2d_unguarded", N_("2D, no guard"),
     N_("The 2D kernel without its guard. A thread with x >= width does not fall off the end: it "
        "writes y * width + x, an element of the NEXT row, which is then written twice. The output "
        "still looks right (both write the same value), which is why this bug survives tests; the "
        "write-count picture shows it."),
     true, false, false},
    {"2d_grid_stride", N_("2D, grid-stride loop"),
     N_("Loops over rows a grid's height apart and, in each row, over columns a grid's width "
        "apart. Any 2D grid covers any picture."),
     true, true, true},
};

}  // namespace

std::span<const LaunchVariant> launchVariants() {
  return kLaunchVariants;
}

const LaunchVariant* findLaunchVariant(std::string_view id) {
  return findRow(kLaunchVariants, &LaunchVariant::id, id);
}

const LaunchVariant& variantOf(const LaunchConfig& c) {
  for (const LaunchVariant& v : kLaunchVariants) {
    if (v.grid2d != c.grid2d || v.gridStride != c.gridStride) continue;
    if (c.gridStride || v.guard == c.guard) return v;  // the loop condition is the guard
  }
  return kLaunchVariants[0];  // unreachable: the table has every combination
}

LaunchConfig withVariant(LaunchConfig c, const LaunchVariant& v) {
  c.grid2d = v.grid2d;
  c.guard = v.guard;
  c.gridStride = v.gridStride;
  return c;
}

std::string describe(const LaunchConfig& c) {
  std::string s = c.grid2d ? "2D" : "1D";
  s += ", N = " + num(c.n);
  if (c.grid2d) s += ", width " + num(c.width);
  s += ", ";
  if (c.autoBlocks)
    s += "auto blocks";
  else if (c.grid2d)
    s += num(c.blocks) + " x " + num(c.blocksY) + " blocks";
  else
    s += num(c.blocks) + " blocks";
  s += " x " + num(c.threadsPerBlock) + " threads";
  if (c.gridStride)
    s += ", grid-stride loop";
  else
    s += c.guard ? ", guard on" : ", guard off";
  return s;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Shape
// ---------------------------------------------------------------------------------------------

BlockShape2D blockShape2D(int threadsPerBlock) {
  if (threadsPerBlock <= 0) return {1, 1};
  int x = std::min(kWarpSize, threadsPerBlock);
  while (threadsPerBlock % x != 0)
    --x;  // ends at 1 at the latest
  return {x, threadsPerBlock / x};
}

namespace {

// Elements y * width + x < n with x < cols and y < rows, for cols <= width: a rectangle in the
// top-left corner of the picture, whose last row may be partial.
long long rectangleElements(long long cols, long long rows, long long n, long long width,
                            long long height) {
  const long long r = std::min(rows, height);
  if (r <= 0 || cols <= 0) return 0;
  if (r < height) return r * cols;
  const long long lastRow = n - (height - 1) * width;
  return (height - 1) * cols + std::min(cols, lastRow);
}

// Pairs (x, y) with x < X, y < Y and y * width + x < n: the in-array writes of an unguarded 2D
// launch (each thread writes once). Rows y < A have all X writes below n; rows A..Ymax-1 have
// n - y * width; rows from height on have none.
long long unguardedInArrayWrites(long long X, long long Y, long long n, long long width,
                                 long long height) {
  const long long yMax = std::min(Y, height);
  const long long a = n >= X ? std::min(yMax, (n - X) / width + 1) : 0;
  const long long rest = (yMax - a) * n - width * ((a + yMax - 1) * (yMax - a) / 2);
  return a * X + rest;
}

}  // namespace

Result<LaunchShape> shapeFor(const LaunchConfig& c, const DeviceLimits& limits) {
  // The ranges bound every product below well inside 64 bits.
  CUDALAB_TRY(checkRange(kLaunchN, static_cast<double>(c.n)));
  CUDALAB_TRY(checkRange(kLaunchThreadsPerBlock, c.threadsPerBlock));
  CUDALAB_TRY(checkRange(kLaunchWidth, static_cast<double>(c.width)));
  if (!c.autoBlocks) {
    CUDALAB_TRY(checkRange(kLaunchBlocks, static_cast<double>(c.blocks)));
    if (c.grid2d) CUDALAB_TRY(checkRange(kLaunchBlocksY, static_cast<double>(c.blocksY)));
  }

  LaunchShape s;
  const long long n = c.n;
  const long long w = c.width;
  const long long h = ceilDiv(n, w);
  const long long tpb = c.threadsPerBlock;
  s.n = n;
  s.width = w;
  s.height = h;
  s.threadsPerBlock = c.threadsPerBlock;
  const long long heuristicBlocks =
      static_cast<long long>(kHeuristicBlocksPerSMHigh) * std::max(1, limits.smCount);

  if (!c.grid2d) {
    s.blockX = c.threadsPerBlock;
    s.blockY = 1;
    const long long need = ceilDiv(n, tpb);
    if (c.autoBlocks)
      s.gridX = c.gridStride ? std::min(need, heuristicBlocks) : need;
    else
      s.gridX = c.blocks;
    s.gridY = 1;
  } else {
    const BlockShape2D b = blockShape2D(c.threadsPerBlock);
    s.blockX = b.x;
    s.blockY = b.y;
    const long long needX = ceilDiv(w, b.x);
    const long long needY = ceilDiv(h, b.y);
    if (c.autoBlocks && c.gridStride) {
      // About heuristicBlocks in all: as many columns of blocks as a row needs (up to that many),
      // then as many rows of blocks as are left.
      s.gridX = std::min(needX, heuristicBlocks);
      s.gridY = std::min(needY, std::max(1LL, heuristicBlocks / s.gridX));
    } else if (c.autoBlocks) {
      s.gridX = needX;
      s.gridY = needY;
    } else {
      s.gridX = c.blocks;
      s.gridY = c.blocksY;
    }
  }

  s.blocks = s.gridX * s.gridY;
  s.totalThreads = s.blocks * tpb;
  s.warpsPerBlock = clWarpsPerBlock(tpb);
  s.warps = s.blocks * s.warpsPerBlock;
  s.partialWarps = tpb % kWarpSize != 0 ? s.blocks : 0;
  s.emptyLanes = s.warps * kWarpSize - s.totalThreads;

  const bool guarded = c.guard || c.gridStride;  // the loop condition is the guard
  s.geometry = IndexGeometry{n, w, h, c.grid2d, guarded, c.gridStride};

  if (!c.grid2d) {
    const long long threads = s.totalThreads;
    s.workingThreads = std::min(threads, n);
    s.coveredElements = c.gridStride ? n : std::min(threads, n);
    s.canaryWrites = guarded ? 0 : std::max(0LL, threads - n);
    s.allocationElements = guarded ? n : std::max(n, threads);
    s.maxElementsPerThread = c.gridStride ? ceilDiv(n, threads) : 1;
  } else {
    const long long X = s.gridX * s.blockX;  // threads along a row
    const long long Y = s.gridY * s.blockY;  // threads down the rows
    s.workingThreads = rectangleElements(std::min(X, w), Y, n, w, h);
    if (c.gridStride) {
      s.coveredElements = n;
      s.allocationElements = n;
      // Thread (0, 0) does the most: every X-th column of every Y-th row, the last possibly the
      // partial row.
      const long long cols = ceilDiv(w, X);
      const long long rows = ceilDiv(h, Y);
      const long long lastRowY = (rows - 1) * Y;
      s.maxElementsPerThread =
          lastRowY == h - 1 ? (rows - 1) * cols + ceilDiv(n - (h - 1) * w, X) : rows * cols;
    } else if (guarded) {
      s.coveredElements = s.workingThreads;
      s.allocationElements = n;
      s.maxElementsPerThread = 1;
    } else {
      // Rows of X > width threads overlap the next row, so what they cover is one stretch from 0
      // to the last thread's element; narrower rows cover a rectangle.
      const long long lastIndex = (Y - 1) * w + X - 1;
      const long long inArray = unguardedInArrayWrites(X, Y, n, w, h);
      s.coveredElements = X <= w ? rectangleElements(X, Y, n, w, h) : std::min(n, lastIndex + 1);
      s.canaryWrites = s.totalThreads - inArray;
      s.extraWrites = inArray - s.coveredElements;
      s.allocationElements = std::max(n, lastIndex + 1);
      s.maxElementsPerThread = 1;
    }
  }
  s.idleThreads = s.totalThreads - s.workingThreads;
  s.unwrittenElements = n - s.coveredElements;
  return s;
}

size_t deviceBytesNeeded(const LaunchShape& s) {
  return static_cast<size_t>(s.allocationElements) * 16u;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Validation and warnings
// ---------------------------------------------------------------------------------------------

Phrase blockTooLargePhrase(long long threads, long long maxThreads) {
  const std::string n = num(threads), need = num(ceilDiv(threads, maxThreads)),
                    most = num(maxThreads);
  if (maxThreads == 1024)
    return {N_("A block can have at most 1,024 threads on every GPU since compute capability 2.0: "
               "the threads of a block run on one SM, share its registers and synchronise "
               "together, and the hardware tracks at most that many. A block of %s threads would "
               "need %s blocks of %s: choose %s or fewer threads per block and let the grid have "
               "more blocks."),
            {n, need, most, most}};
  return {N_("This GPU allows at most %s threads per block (1,024 on every GPU since compute "
             "capability 2.0): the threads of a block run on one SM, share its registers and "
             "synchronise together, and the hardware tracks at most that many. A block of %s "
             "threads would need %s blocks of %s: choose %s or fewer threads per block and let "
             "the grid have more blocks."),
          {most, n, need, most, most}};
}

Phrase validationPhrase(const LaunchConfig& c, const DeviceLimits& limits) {
  Result<LaunchShape> rs = shapeFor(c, limits);
  if (!rs) return {};
  const LaunchShape& s = *rs;

  if (c.threadsPerBlock > limits.maxThreadsPerBlock)
    return blockTooLargePhrase(c.threadsPerBlock, limits.maxThreadsPerBlock);
  if (s.gridX > limits.maxGridX)
    return {N_("A grid can have at most %s blocks in x on this GPU, and this launch asks for %s. "
               "Use fewer blocks: with a grid-stride loop a few blocks per SM cover any N."),
            {num(limits.maxGridX), num(s.gridX)}};
  if (s.gridY > limits.maxGridY) {
    if (c.autoBlocks)
      return {N_("A grid can have at most %s blocks in y, far fewer than in x, and the picture is "
                 "%s rows high and a block covers %s of them, so the grid needs %s. Make the rows "
                 "longer (width), use more threads per block, or a grid-stride loop."),
              {num(limits.maxGridY), num(s.height), num(s.blockY), num(s.gridY)}};
    return {N_("A grid can have at most %s blocks in y, far fewer than in x, and this launch asks "
               "for %s. Make the rows longer (width), use more threads per block, or a "
               "grid-stride loop."),
            {num(limits.maxGridY), num(s.gridY)}};
  }
  const size_t need = deviceBytesNeeded(s);
  if (need > limits.freeBytes) {
    const long long canary = s.allocationElements - s.n;
    const std::string needed = mib(static_cast<double>(need)),
                      free = mib(static_cast<double>(limits.freeBytes));
    if (canary > 0)
      return {N_("N = %s needs %s of device memory (input, output, owner map and write counts: 16 "
                 "bytes per element, for the array and the %s-element canary zone after it), but "
                 "only %s is free. Choose a smaller N or fewer blocks, or turn the guard on: the "
                 "canary zone is there only to catch the threads that write past the end."),
              {num(c.n), needed, num(canary), free}};
    return {N_("N = %s needs %s of device memory (input, output, owner map and write counts: 16 "
               "bytes per element), but only %s is free. Choose a smaller N."),
            {num(c.n), needed, free}};
  }
  return {};
}

Status validate(const LaunchConfig& c, const DeviceLimits& limits) {
  Result<LaunchShape> rs = shapeFor(c, limits);
  if (!rs) return rs.status();
  const Phrase why = validationPhrase(c, limits);
  if (!why.empty()) return Status::errorf(why.format, why.values);
  return {};
}

std::vector<Phrase> warnings(const LaunchConfig& c) {
  std::vector<Phrase> out;
  const int t = c.threadsPerBlock;
  if (t > 0 && t % kWarpSize != 0) {
    const long long warps = clWarpsPerBlock(t);
    const int active = t % kWarpSize;
    const long long lanes = warps * kWarpSize;
    if (warps == 1)
      out.push_back({N_("A block of %s threads runs as %s warp with %s active lanes of 32: %s of "
                        "the block's %s lanes do nothing but still take their place on the SM. A "
                        "multiple of 32 fills every warp."),
                     {num(t), num(warps), num(active), num(lanes - t), num(lanes)}});
    else
      out.push_back({N_("A block of %s threads runs as %s warps, the last with %s active lanes of "
                        "32: %s of the block's %s lanes do nothing but still take their place on "
                        "the SM. A multiple of 32 fills every warp."),
                     {num(t), num(warps), num(active), num(lanes - t), num(lanes)}});
  }
  if (c.grid2d && t > kWarpSize && t % kWarpSize != 0) {
    const BlockShape2D b = blockShape2D(t);
    out.push_back({N_("In 2D a block of %s threads is %s x %s: 32 does not divide %s, so a block "
                      "row is narrower than a warp and each warp spans several rows of the "
                      "picture."),
                   {num(t), num(b.x), num(b.y), num(t)}});
  }
  if (c.gridStride && !c.guard) {
    out.push_back({N_("A grid-stride loop's condition (i < n) is its guard, so turning the guard "
                      "off changes nothing here."),
                   {}});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Occupancy and conclusion
// ---------------------------------------------------------------------------------------------

int modelBlocksPerSM(int threadsPerBlock, const DeviceLimits& limits) {
  if (threadsPerBlock <= 0 || threadsPerBlock > limits.maxThreadsPerBlock) return 0;
  // An SM schedules whole warps: a block of 100 threads takes 4 warps' worth of its thread slots.
  const long long slots = clWarpsPerBlock(threadsPerBlock) * kWarpSize;
  const long long byThreads = limits.maxThreadsPerSM / slots;
  return static_cast<int>(std::min<long long>(byThreads, limits.maxBlocksPerSM));
}

OccupancyNumbers occupancyNumbers(const LaunchShape& s, const DeviceLimits& limits,
                                  int blocksPerSM) {
  OccupancyNumbers o;
  o.blocksPerSM = blocksPerSM;
  o.busySMs = std::min<long long>(s.blocks, limits.smCount);
  if (blocksPerSM <= 0 || limits.smCount <= 0 || s.blocks <= 0) return o;
  o.residentBlocks = static_cast<long long>(blocksPerSM) * limits.smCount;
  o.waves = ceilDiv(s.blocks, o.residentBlocks);
  const long long inLast = s.blocks - (o.waves - 1) * o.residentBlocks;
  o.tailFraction = static_cast<double>(inLast) / static_cast<double>(o.residentBlocks);
  const double maxWarps = static_cast<double>(limits.maxThreadsPerSM) / kWarpSize;
  o.occupancy = maxWarps > 0 ? std::min(1.0, static_cast<double>(blocksPerSM) *
                                                 static_cast<double>(s.warpsPerBlock) / maxWarps)
                             : 0.0;
  return o;
}

std::vector<Phrase> conclusion(const LaunchConfig& c, const LaunchShape& s,
                               const OccupancyNumbers& o, const DeviceLimits& limits) {
  std::vector<Phrase> parts;
  // Wrong results first, then wasted hardware, then what is fine. Every choice between words is
  // a whole sentence of its own, so each language can say it its way.
  if (s.unwrittenElements > 0) {
    if (c.grid2d)
      parts.push_back({N_("The grid covers %s x %s threads of a %s x %s picture and no grid-stride "
                          "loop, so %s elements were never written: they still hold the poison "
                          "and the check counts them wrong. Launch enough blocks to cover N (the "
                          "automatic grid), or loop with a grid stride."),
                       {num(s.gridX * s.blockX), num(s.gridY * s.blockY), num(s.width),
                        num(s.height), num(s.unwrittenElements)}});
    else
      parts.push_back({N_("The grid has %s threads for %s elements and no grid-stride loop, so %s "
                          "elements were never written: they still hold the poison and the check "
                          "counts them wrong. Launch enough blocks to cover N (the automatic "
                          "grid), or loop with a grid stride."),
                       {num(s.totalThreads), num(s.n), num(s.unwrittenElements)}});
  }
  if (s.canaryWrites > 0) {
    parts.push_back({N_("With the guard off, %s writes went past the end of the array into the "
                        "canary zone allocated after it. In a real program that memory belongs to "
                        "something else, or the kernel stops with an illegal-address error."),
                     {num(s.canaryWrites)}});
  }
  if (s.extraWrites > 0) {
    parts.push_back({N_("Threads with x >= width wrote into the next row: %s writes landed on "
                        "elements that another thread also wrote. The output still looks right "
                        "because both write the same value, which is how this bug survives tests; "
                        "the write-count picture shows it."),
                     {num(s.extraWrites)}});
  }
  if (s.idleThreads > 0 && s.idleThreads * 10 > s.totalThreads) {
    const std::vector<std::string> args = {
        num(s.idleThreads), num(s.totalThreads),
        percent(static_cast<double>(s.idleThreads) / static_cast<double>(s.totalThreads))};
    if (c.guard || c.gridStride)
      parts.push_back({N_("%s of the %s threads (%s) have no element of their own: they only "
                          "check the guard and return."),
                       args});
    else
      parts.push_back({N_("%s of the %s threads (%s) have no element of their own, and without "
                          "the guard they write anyway."),
                       args});
  }
  if (s.partialWarps > 0) {
    parts.push_back({N_("Every block of %s threads leaves %s lanes of its last warp empty (%s "
                        "lanes in all): choose a multiple of 32."),
                     {num(s.threadsPerBlock), num(s.warpsPerBlock * kWarpSize - s.threadsPerBlock),
                      num(s.emptyLanes)}});
  }
  if (s.blocks < limits.smCount) {
    const std::vector<std::string> args = {num(s.blocks), num(limits.smCount),
                                           num(limits.smCount - s.blocks)};
    if (s.blocks == 1)
      parts.push_back({N_("Only %s block for %s SMs: a block runs on one SM, so %s SMs have "
                          "nothing to do."),
                       args});
    else
      parts.push_back({N_("Only %s blocks for %s SMs: a block runs on one SM, so %s SMs have "
                          "nothing to do."),
                       args});
  } else if (c.gridStride) {
    const double perSM = static_cast<double>(s.blocks) / limits.smCount;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", perSM);
    if (perSM >= kHeuristicBlocksPerSMLow && perSM <= kHeuristicBlocksPerSMHigh) {
      parts.push_back({N_("%s blocks is %s per SM, inside the course's 2 to 4 blocks per SM; the "
                          "grid-stride loop gives each thread up to %s elements."),
                       {num(s.blocks), buf, num(s.maxElementsPerThread)}});
    } else {
      parts.push_back({N_("%s blocks is %s per SM; the course's heuristic for a grid-stride loop "
                          "is 2 to 4 per SM (the blocks sweep shows how much it matters here)."),
                       {num(s.blocks), buf}});
    }
  }
  if (o.blocksPerSM > 0 && o.blocksPerSM == limits.maxBlocksPerSM && o.occupancy <= 0.5) {
    parts.push_back({N_("An SM holds at most %s blocks, so blocks of %s threads fill only %s of "
                        "its thread slots: bigger blocks give it more warps to hide memory latency "
                        "with."),
                     {num(limits.maxBlocksPerSM), num(s.threadsPerBlock), percent(o.occupancy)}});
  }
  if (o.waves > 1 && o.waves <= 8 && o.tailFraction < 0.5) {
    parts.push_back({N_("The blocks run in %s waves of %s and the last wave is only %s full, so "
                        "much of the GPU waits at the end."),
                     {num(o.waves), num(o.residentBlocks), percent(o.tailFraction)}});
  }
  const bool correct = s.unwrittenElements == 0 && s.canaryWrites == 0 && s.extraWrites == 0;
  if (parts.empty() && correct) {
    const std::string blocks = num(s.blocks), threads = num(s.threadsPerBlock),
                      waves = num(o.waves);
    const char* f = nullptr;
    if (c.gridStride)
      f = o.waves <= 0   ? N_("Every element is written exactly once by the grid-stride loop: %s "
                                "blocks of %s threads. A good launch; the sweeps show whether another "
                                "block size or grid is faster.")
          : o.waves == 1 ? N_("Every element is written exactly once by the grid-stride loop: %s "
                              "blocks of %s threads in %s wave. A good launch; the sweeps show "
                              "whether another block size or grid is faster.")
                         : N_("Every element is written exactly once by the grid-stride loop: %s "
                              "blocks of %s threads in %s waves. A good launch; the sweeps show "
                              "whether another block size or grid is faster.");
    else
      f = o.waves <= 0   ? N_("Every element is written exactly once by its own thread: %s blocks "
                                "of %s threads. A good launch; the sweeps show whether another block "
                                "size or grid is faster.")
          : o.waves == 1 ? N_("Every element is written exactly once by its own thread: %s blocks "
                              "of %s threads in %s wave. A good launch; the sweeps show whether "
                              "another block size or grid is faster.")
                         : N_("Every element is written exactly once by its own thread: %s blocks "
                              "of %s threads in %s waves. A good launch; the sweeps show whether "
                              "another block size or grid is faster.");
    Phrase good{f, {blocks, threads}};
    if (o.waves > 0) good.values.push_back(waves);
    parts.push_back(std::move(good));
  } else if (correct) {
    parts.insert(parts.begin(), Phrase{N_("Every element is written exactly once."), {}});
  }
  return parts;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Sweeps
// ---------------------------------------------------------------------------------------------

std::vector<LaunchConfig> threadsPerBlockSweep(const LaunchConfig& base) {
  std::vector<LaunchConfig> out;
  for (int t = kWarpSize; t <= 1024; t += kWarpSize) {
    LaunchConfig c = base;
    c.threadsPerBlock = t;
    c.autoBlocks = true;
    out.push_back(c);
  }
  return out;
}

std::vector<LaunchConfig> blocksSweep(const LaunchConfig& base, const DeviceLimits& limits) {
  LaunchConfig c = base;
  c.grid2d = false;  // the course's grid-stride loop is 1D
  c.gridStride = true;
  c.autoBlocks = false;
  const long long need = ceilDiv(std::max(1LL, c.n), std::max(1, c.threadsPerBlock));
  std::vector<long long> counts;
  for (long long b = 1; b < need; b *= 2)
    counts.push_back(b);
  counts.push_back(need);
  const long long sms = std::max(1, limits.smCount);
  for (long long perSM : {kHeuristicBlocksPerSMLow, kHeuristicBlocksPerSMHigh})
    if (perSM * sms < need) counts.push_back(perSM * sms);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  std::vector<LaunchConfig> out;
  for (long long b : counts) {
    c.blocks = b;
    out.push_back(c);
  }
  return out;
}

}  // namespace cudalab::launch_config
