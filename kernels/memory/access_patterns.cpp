#include "memory/access_patterns.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/translatable.hpp"
#include "common/table.hpp"

namespace cudalab::memory {

using namespace mem;

// ---------------------------------------------------------------------------------------------
// [SECTION] Kernels
// ---------------------------------------------------------------------------------------------

namespace {

const Instruction kLoadIn{N_("load in"), Space::Global, Op::Load};
const Instruction kStoreOut{N_("store out"), Space::Global, Op::Store};
const Instruction kLoadA{N_("load A"), Space::Global, Op::Load};
const Instruction kStoreB{N_("store B"), Space::Global, Op::Store};
const Instruction kTileStore{N_("shared store (tile)"), Space::Shared, Op::Store};
const Instruction kTileLoad{N_("shared load (tile)"), Space::Shared, Op::Load};

const std::vector<KernelInfo>& kernelTable() {
  static const std::vector<KernelInfo> table{
      {KernelId::StridedCopy,
       "strided_copy",
       "out[i * s + o] = in[i * s + o];",
       {kLoadIn, kStoreOut}},
      {KernelId::TraverseRows,
       "traverse_rows",
       "out[y * cols + x] = in[y * cols + x];",
       {kLoadIn, kStoreOut}},
      {KernelId::TraverseColumns,
       "traverse_columns",
       "out[x * cols + y] = in[x * cols + y];",
       {kLoadIn, kStoreOut}},
      {KernelId::ReadAoS, "read_aos", "out[i] = particles[i].x;", {kLoadIn, kStoreOut}},
      {KernelId::ReadSoA, "read_soa", "out[i] = x[i];", {kLoadIn, kStoreOut}},
      {KernelId::TransposeNaive,
       "transpose_naive",
       "B[x * rows + y] = A[y * cols + x];",
       {kLoadA, kStoreB}},
      {KernelId::TransposeTiled,
       "transpose_tiled",
       "tile[ty][tx] = A[y * cols + x]; ... B[y2 * rows + x2] = tile[tx][ty];",
       {kLoadA, kTileStore, kTileLoad, kStoreB}},
      {KernelId::CopyTiled, "copy_tiled", "B[y * cols + x] = A[y * cols + x];", {kLoadA, kStoreB}},
      {KernelId::CopyThroughTile,
       "copy_through_tile",
       "tile[ty][tx] = A[y * cols + x]; ... B[y * cols + x] = tile[ty][tx];",
       {kLoadA, kTileStore, kTileLoad, kStoreB}},
      {KernelId::MatmulCourse,
       "matmul_course",
       "for k: sum += A[i * K + k] * B[k * N + j];",
       {{N_("load A"), Space::Global, Op::Load},
        {N_("load B"), Space::Global, Op::Load},
        {N_("store C"), Space::Global, Op::Store}}},
      {KernelId::MatmulSwapped,
       "matmul_swapped",
       "for k: sum += A[i * K + k] * B[k * N + j];",
       {{N_("load A"), Space::Global, Op::Load},
        {N_("load B"), Space::Global, Op::Load},
        {N_("store C"), Space::Global, Op::Store}}},
      {KernelId::SharedStrided,
       "shared_strided",
       "v = buf[lane * s + o];",
       {{N_("shared load"), Space::Shared, Op::Load}}},
  };
  return table;
}

}  // namespace

std::span<const KernelInfo> kernelInfos() {
  return kernelTable();
}

const KernelInfo& kernelInfo(KernelId id) {
  return kernelTable()[static_cast<size_t>(id)];
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Patterns
// ---------------------------------------------------------------------------------------------

namespace {

const PatternInfo kPatterns[] = {
    {PatternId::Strided, "strided", N_("Copy with a stride"), KernelId::StridedCopy, 0,
     N_("Lane l reads element l x stride + offset. Stride 1 is a contiguous, coalesced read; every "
        "doubling of the stride doubles the sectors until each lane has one of its own.")},
    {PatternId::RowWise, "row-wise", N_("2D array, along a row"), KernelId::TraverseRows, 0,
     N_("A row-major array read with thread x walking the columns of one row: neighbouring lanes "
        "read neighbouring addresses.")},
    {PatternId::ColumnWise, "column-wise", N_("2D array, down a column"), KernelId::TraverseColumns,
     0,
     N_("The same array read with thread x walking the rows of one column: neighbouring lanes are "
        "a whole row apart, so each needs a sector of its own.")},
    {PatternId::AoS, "aos", N_("Array of structures: read x"), KernelId::ReadAoS, 0,
     N_("Particles stored as {x, y, z} one after another: reading only x skips the other fields, "
        "which still travel in the same sectors.")},
    {PatternId::SoA, "soa", N_("Structure of arrays: read x"), KernelId::ReadSoA, 0,
     N_("The same particles stored as three arrays x[], y[], z[]: reading x is a contiguous "
        "read.")},
    {PatternId::TransposeRead, "transpose-read", N_("Course transpose: read A[y, x]"),
     KernelId::TransposeNaive, 0,
     N_("The course's B[x, y] = A[y, x] with x from threadIdx.x: the read walks along a row of A, "
        "coalesced.")},
    {PatternId::TransposeWrite, "transpose-write", N_("Course transpose: write B[x, y]"),
     KernelId::TransposeNaive, 1,
     N_("The same kernel's write walks down a column of B: every lane writes a different row, so a "
        "warp touches 32 sectors for 128 bytes.")},
    {PatternId::MatmulA, "matmul-a", N_("Naive matmul (course): read A[i, k]"),
     KernelId::MatmulCourse, 0,
     N_("The course's naive kernel puts i (the row of C) on thread x: the warp's lanes read A down "
        "a column, 32 sectors per request.")},
    {PatternId::MatmulB, "matmul-b", N_("Naive matmul (course): read B[k, j]"),
     KernelId::MatmulCourse, 1,
     N_("In the same kernel j is the same for the whole warp: all lanes read one element of B, one "
        "sector (a broadcast).")},
    {PatternId::MatmulSwappedA, "matmul-swapped-a", N_("Naive matmul, j on x: read A[i, k]"),
     KernelId::MatmulSwapped, 0,
     N_("With j (the column of C) on thread x instead, the row i is the same for the whole warp: "
        "one element of A, one sector.")},
    {PatternId::MatmulSwappedB, "matmul-swapped-b", N_("Naive matmul, j on x: read B[k, j]"),
     KernelId::MatmulSwapped, 1,
     N_("...and B is read along a row: 32 consecutive floats, 4 sectors.")},
    {PatternId::TileRows, "tile-rows", N_("Shared tile, read by rows"), KernelId::CopyThroughTile,
     2,
     N_("A 32x32 float tile in shared memory read along its rows: lane l reads column l, bank l. "
        "No conflict, padded or not.")},
    {PatternId::TileColumns, "tile-columns", N_("Shared tile, read by columns"),
     KernelId::TransposeTiled, 2,
     N_("The transpose reads its tile down a column: lane l reads row l. With 32 columns every row "
        "starts in bank 0, so all 32 lanes hit one bank (32-way). One column of padding (33) "
        "shifts each row by one bank: no conflict.")},
    {PatternId::SharedStrided, "shared-strided", N_("Shared memory with a stride"),
     KernelId::SharedStrided, 0,
     N_("Lane l reads shared element l x stride + offset. Stride 1: one word per bank. Stride 2: "
        "two lanes per bank (2-way). Stride 32: all lanes in one bank (32-way). Stride 0: one word "
        "for everybody, a broadcast, no conflict.")},
};

}  // namespace

std::span<const PatternInfo> patterns() {
  return kPatterns;
}

const PatternInfo& patternInfo(PatternId id) {
  return kPatterns[static_cast<size_t>(id)];
}

const PatternInfo* findPattern(const std::string& key) {
  return findRow(kPatterns, &PatternInfo::key, key);
}

Space patternSpace(PatternId id) {
  const PatternInfo& p = patternInfo(id);
  return kernelInfo(p.kernel).instructions[size_t(p.instruction)].space;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters
// ---------------------------------------------------------------------------------------------

Status validate(const PatternParams& p) {
  CUDALAB_TRY(checkRange(kStride, p.stride));
  CUDALAB_TRY(checkRange(kOffset, p.offset));
  CUDALAB_TRY(checkRange(kElementBytes, p.elementBytes));
  const int e = p.elementBytes;
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
    return Status::errorf(N_("Element size must be 1, 2, 4, 8 or 16 bytes (a char, half, float, "
                             "double or float4); %s is not one of them."),
                          {std::to_string(e)});
  CUDALAB_TRY(checkRange(kRows, p.rows));
  CUDALAB_TRY(checkRange(kCols, p.cols));
  CUDALAB_TRY(checkRange(kInner, p.inner));
  CUDALAB_TRY(checkRange(kCount, p.count));
  CUDALAB_TRY(checkRange(kStructFloats, p.structFloats));
  if (p.matmulBlockX < 1 || p.matmulBlockY < 1 || p.matmulBlockX * p.matmulBlockY > 1024)
    return Status::errorf(N_("A block has 1 to 1024 threads; %s x %s is not allowed."),
                          {std::to_string(p.matmulBlockX), std::to_string(p.matmulBlockY)});
  if (p.elementsPerThread != 1 && p.elementsPerThread != 4)
    return Status::errorf(
        N_("Elements per thread must be 1 (a 32x32 block) or 4 (a 32x8 block); %s is neither."),
        {std::to_string(p.elementsPerThread)});
  return {};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Evaluation
// ---------------------------------------------------------------------------------------------

namespace {

// Where the arrays lie: far enough apart that no sector is shared; cudaMalloc aligns to 256 bytes.
constexpr std::uint64_t kBaseIn = 0;
constexpr std::uint64_t kBaseOut = std::uint64_t{1} << 40;

int ceilDiv(long long a, int b) {
  return static_cast<int>((a + b - 1) / b);
}

// One thread's coordinates in the grid.
struct Thread {
  int bx, by, tx, ty;
};

// The address thread `t` uses at `instruction` in trip `it`, or nullopt when it skips it. Each
// case is the C++ twin of a kernel in memory.cu: keep them in step.
std::optional<std::uint64_t> threadAddress(KernelId k, int instruction, const PatternParams& p,
                                           const LaunchShape& s, const Thread& t, int it) {
  using U = std::uint64_t;
  const U base =
      kernelInfo(k).instructions[size_t(instruction)].op == Op::Store ? kBaseOut : kBaseIn;
  const U shared = 0;
  switch (k) {
    case KernelId::StridedCopy: {
      const long long i = 1LL * t.bx * s.blockX + t.tx;
      if (i >= p.count) return std::nullopt;
      return base + U(i * p.stride + p.offset) * U(p.elementBytes);
    }
    case KernelId::TraverseRows: {
      const long long x = 1LL * t.bx * s.blockX + t.tx, y = 1LL * t.by * s.blockY + t.ty;
      if (x >= p.cols || y >= p.rows) return std::nullopt;
      return base + U(y * p.cols + x) * 4;
    }
    case KernelId::TraverseColumns: {
      const long long x = 1LL * t.bx * s.blockX + t.tx, y = 1LL * t.by * s.blockY + t.ty;
      if (x >= p.rows || y >= p.cols) return std::nullopt;
      return base + U(x * p.cols + y) * 4;
    }
    case KernelId::ReadAoS:
    case KernelId::ReadSoA: {
      const long long i = 1LL * t.bx * s.blockX + t.tx;
      if (i >= p.count) return std::nullopt;
      const int floats = (k == KernelId::ReadAoS && instruction == 0) ? p.structFloats : 1;
      return base + U(i) * U(floats) * 4;
    }
    case KernelId::TransposeNaive: {
      const long long x = 1LL * t.bx * s.blockX + t.tx, y = 1LL * t.by * s.blockY + t.ty;
      if (x >= p.cols || y >= p.rows) return std::nullopt;
      return instruction == 0 ? base + U(y * p.cols + x) * 4 : base + U(x * p.rows + y) * 4;
    }
    case KernelId::TransposeTiled:
    case KernelId::CopyThroughTile:
    case KernelId::CopyTiled: {
      const int j = it * s.blockY;  // the row of the tile this trip covers
      const int width = kTile + (p.padded ? 1 : 0);
      const bool transpose = k == KernelId::TransposeTiled;
      // Reading A: the block's tile at (bx, by).
      const long long x = 1LL * t.bx * kTile + t.tx, y = 1LL * t.by * kTile + t.ty + j;
      const bool inA = x < p.cols && y < p.rows;
      // Writing B: a transpose writes the tile at (by, bx) of B, which has `rows` columns.
      const long long x2 = transpose ? 1LL * t.by * kTile + t.tx : x;
      const long long y2 = transpose ? 1LL * t.bx * kTile + t.ty + j : y;
      const bool inB = transpose ? (x2 < p.rows && y2 < p.cols) : inA;
      if (k == KernelId::CopyTiled)
        return inA ? std::optional<U>(base + U(y * p.cols + x) * 4) : std::nullopt;
      switch (instruction) {
        case 0:
          return inA ? std::optional<U>(base + U(y * p.cols + x) * 4) : std::nullopt;
        case 1:
          return inA ? std::optional<U>(shared + U((t.ty + j) * width + t.tx) * 4) : std::nullopt;
        case 2: {
          if (!inB) return std::nullopt;
          const int row = transpose ? t.tx : t.ty + j, col = transpose ? t.ty + j : t.tx;
          return shared + U(row * width + col) * 4;
        }
        default:
          if (!inB) return std::nullopt;
          return transpose ? base + U(y2 * p.rows + x2) * 4 : base + U(y * p.cols + x) * 4;
      }
    }
    case KernelId::MatmulCourse:
    case KernelId::MatmulSwapped: {
      const bool course = k == KernelId::MatmulCourse;
      const long long x = 1LL * t.bx * s.blockX + t.tx, y = 1LL * t.by * s.blockY + t.ty;
      const long long i = course ? x : y, j = course ? y : x;
      if (i >= p.rows || j >= p.cols) return std::nullopt;
      const long long kk = it;
      switch (instruction) {
        case 0:
          return base + U(i * p.inner + kk) * 4;
        case 1:
          return (std::uint64_t{1} << 39) + U(kk * p.cols + j) * 4;  // B: apart from A
        default:
          if (it != 0) return std::nullopt;  // C is written once, after the loop
          return base + U(i * p.cols + j) * 4;
      }
    }
    case KernelId::SharedStrided:
      return shared + U(t.tx * p.stride + p.offset) * U(p.elementBytes);
  }
  return std::nullopt;
}

int elementBytesOf(KernelId k, const PatternParams& p) {
  return (k == KernelId::StridedCopy || k == KernelId::SharedStrided) ? p.elementBytes : 4;
}

}  // namespace

LaunchShape launchShape(KernelId k, const PatternParams& p) {
  LaunchShape s;
  switch (k) {
    case KernelId::StridedCopy:
    case KernelId::ReadAoS:
    case KernelId::ReadSoA:
      s.blockX = 256;
      s.gridX = ceilDiv(p.count, 256);
      break;
    case KernelId::TraverseRows:
    case KernelId::TransposeNaive:
      s.blockX = 32, s.blockY = 8;
      s.gridX = ceilDiv(p.cols, 32), s.gridY = ceilDiv(p.rows, 8);
      break;
    case KernelId::TraverseColumns:
      s.blockX = 32, s.blockY = 8;
      s.gridX = ceilDiv(p.rows, 32), s.gridY = ceilDiv(p.cols, 8);
      break;
    case KernelId::TransposeTiled:
    case KernelId::CopyTiled:
    case KernelId::CopyThroughTile:
      s.blockX = kTile, s.blockY = kTile / p.elementsPerThread;
      s.iterations = p.elementsPerThread;
      s.gridX = ceilDiv(p.cols, kTile), s.gridY = ceilDiv(p.rows, kTile);
      break;
    case KernelId::MatmulCourse:
      s.blockX = p.matmulBlockX, s.blockY = p.matmulBlockY, s.iterations = p.inner;
      s.gridX = ceilDiv(p.rows, s.blockX), s.gridY = ceilDiv(p.cols, s.blockY);
      break;
    case KernelId::MatmulSwapped:
      s.blockX = p.matmulBlockX, s.blockY = p.matmulBlockY, s.iterations = p.inner;
      s.gridX = ceilDiv(p.cols, s.blockX), s.gridY = ceilDiv(p.rows, s.blockY);
      break;
    case KernelId::SharedStrided:
      s.blockX = 32;
      break;
  }
  return s;
}

namespace {

WarpRequest requestOf(KernelId k, int instruction, const PatternParams& p, const LaunchShape& s,
                      long long warp, int iteration) {
  WarpRequest r;
  r.elementBytes = elementBytesOf(k, p);
  r.activeMask = 0;
  const int wpb = s.warpsPerBlock();
  const long long block = warp / wpb;
  const int w = static_cast<int>(warp % wpb);
  Thread t{static_cast<int>(block % s.gridX), static_cast<int>(block / s.gridX), 0, 0};
  if (t.by >= s.gridY || iteration < 0 || iteration >= s.iterations) return r;
  for (int l = 0; l < kWarpSize; ++l) {
    const int linear = w * kWarpSize + l;
    t.tx = linear % s.blockX;
    t.ty = linear / s.blockX;
    if (t.ty >= s.blockY) continue;
    if (auto a = threadAddress(k, instruction, p, s, t, iteration)) {
      r.address[size_t(l)] = *a;
      r.activeMask |= 1u << l;
    }
  }
  return r;
}

void add(InstructionTotals& t, Space space, const WarpRequest& r) {
  if (r.activeMask == 0) return;
  ++t.requests;
  if (space == Space::Global) {
    const GlobalAccess g = analyzeGlobal(r);
    t.sectors += g.sectorCount();
    t.bytesRequested += g.bytesRequested;
  } else {
    t.wavefronts += analyzeShared(r).wavefronts;
  }
}

}  // namespace

WarpRequest warpRequest(KernelId k, int instruction, const PatternParams& p, long long warp,
                        int iteration) {
  return requestOf(k, instruction, p, launchShape(k, p), warp, iteration);
}

WarpRequest warpRequest(PatternId id, const PatternParams& p, long long warp, int iteration) {
  const PatternInfo& info = patternInfo(id);
  return warpRequest(info.kernel, info.instruction, p, warp, iteration);
}

Result<KernelMap> kernelMap(PatternId id, const PatternParams& p, const std::atomic<bool>* cancel) {
  CUDALAB_TRY(validate(p));
  const PatternInfo& info = patternInfo(id);
  const Space space = patternSpace(id);
  KernelMap m;
  m.shape = launchShape(info.kernel, p);
  const LaunchShape& s = m.shape;
  const long long warps = s.warps();
  if (warps > kMaxMapWarps)
    return Status::errorf(
        N_("This kernel has %s warps; the map draws at most %s. Choose a smaller size."),
        {std::to_string(warps), std::to_string(kMaxMapWarps)});
  // 2D kernels have one warp per row of a 32-wide block: lay warps out like the data.
  const bool rowsOfWarps = s.blockX == kWarpSize;
  if (rowsOfWarps) {
    m.cols = s.gridX;
    m.rows = s.gridY * s.blockY;
  } else {
    m.cols = static_cast<int>(std::min<long long>(warps, 32));
    m.rows = static_cast<int>((warps + m.cols - 1) / m.cols);
  }
  m.perWarp.assign(size_t(m.rows) * size_t(m.cols), std::numeric_limits<double>::quiet_NaN());
  m.minValue = std::numeric_limits<double>::infinity();
  m.maxValue = 0;
  const int wpb = s.warpsPerBlock();
  for (long long w = 0; w < warps; ++w) {
    if (cancel && (w & 1023) == 0 && cancel->load()) return Status::error(N_("Cancelled."));
    InstructionTotals mine;
    for (int it = 0; it < s.iterations; ++it)
      add(mine, space, requestOf(info.kernel, info.instruction, p, s, w, it));
    if (mine.requests == 0) continue;
    const double v =
        space == Space::Global ? mine.sectorsPerRequest() : mine.wavefrontsPerRequest();
    size_t cell = size_t(w);
    if (rowsOfWarps) {
      const long long block = w / wpb;
      const long long bx = block % s.gridX, by = block / s.gridX;
      cell = size_t((by * s.blockY + w % wpb) * m.cols + bx);
    }
    m.perWarp[cell] = v;
    m.minValue = std::min(m.minValue, v);
    m.maxValue = std::max(m.maxValue, v);
    m.totals.requests += mine.requests;
    m.totals.sectors += mine.sectors;
    m.totals.wavefronts += mine.wavefronts;
    m.totals.bytesRequested += mine.bytesRequested;
  }
  if (m.totals.requests == 0) m.minValue = 0;
  return m;
}

std::vector<InstructionTotals> kernelTotals(KernelId k, const PatternParams& p) {
  const KernelInfo& info = kernelInfo(k);
  const LaunchShape s = launchShape(k, p);
  std::vector<InstructionTotals> totals(info.instructions.size());
  for (long long w = 0; w < s.warps(); ++w)
    for (size_t i = 0; i < totals.size(); ++i)
      for (int it = 0; it < s.iterations; ++it)
        add(totals[i], info.instructions[i].space, requestOf(k, int(i), p, s, w, it));
  return totals;
}

TotalsByKind kernelTotalsByKind(KernelId k, const PatternParams& p) {
  const std::vector<InstructionTotals> t = kernelTotals(k, p);
  const KernelInfo& info = kernelInfo(k);
  TotalsByKind sum{};
  for (size_t i = 0; i < t.size(); ++i) {
    InstructionTotals& s = sum[int(info.instructions[i].space)][int(info.instructions[i].op)];
    s.requests += t[i].requests;
    s.sectors += t[i].sectors;
    s.wavefronts += t[i].wavefronts;
    s.bytesRequested += t[i].bytesRequested;
  }
  return sum;
}

}  // namespace cudalab::memory
