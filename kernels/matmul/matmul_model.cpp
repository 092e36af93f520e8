// The matmul ladder's table, launch arithmetic, validation and tiling model: plain C++, no CUDA.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "matmul/matmul.hpp"
#include "matmul/matmul_config.hpp"
#include "common/table.hpp"

namespace cudalab::matmul {

namespace {

constexpr int ceilDiv(long long a, int b) {
  return static_cast<int>((a + b - 1) / b);
}

constexpr int kN = kNaiveBlock;
using B1 = Blocked1D;
using B2 = Blocked2D;
using W = WarpConfig;

constexpr int tiledShared(int tile, int bytes) {
  return 2 * tile * tile * bytes;
}

// clang-format off
const std::array<StepInfo, 14> kSteps{{
    {StepId::Naive, "naive", N_("1. Naive (course)"), Precision::Float32, Family::Naive, true,
     kN, kN, kN, kN, 1, 1, 1, 0, false, 5,
     N_("The course's kernel: one thread per element of C, with i (the row) on thread x. The 32 "
        "lanes of a warp (16 rows x 2 columns with the course's 16 x 16 blocks) read A[i, k] "
        "from 16 different rows: 16 sectors for one float each, 17 with B. Every product comes "
        "from global memory.")},
    {StepId::Swapped, "swapped", N_("2. Naive, j on x"), Precision::Float32, Family::Naive, false,
     kN, kN, kN, kN, 1, 1, 1, 0, false, 6,
     N_("Only the mapping changes: j (the column) on thread x. A warp (16 columns x 2 rows) now "
        "reads B[k, j] as 16 consecutive floats and A[i, k] as one value per row: 4 sectors per k "
        "instead of 17. Still no reuse: every product reads global memory.")},
    {StepId::Tiled8, "tiled8", N_("3. Shared tiles, 8 x 8"), Precision::Float32, Family::Tiled,
     false, 8, 8, 8, 8, 8, 1, 1, tiledShared(8, 4), false, 4,
     N_("The course's tiled kernel. A block loads an 8 x 8 tile of A and one of B into shared "
        "memory, then each thread multiplies from there: each value read from global memory is "
        "used 8 times, and every 8 multiply-adds cost two __syncthreads barriers: no faster than "
        "the swapped naive kernel, whose reads the caches serve well.")},
    {StepId::Tiled16, "tiled16", N_("3. Shared tiles, 16 x 16"), Precision::Float32, Family::Tiled,
     false, 16, 16, 16, 16, 16, 1, 1, tiledShared(16, 4), false, 4,
     N_("The same kernel with 16 x 16 tiles, the course's choice: each value loaded is used 16 "
        "times. Now shared memory is the bottleneck: every multiply-add needs two shared loads.")},
    {StepId::Tiled32, "tiled32", N_("3. Shared tiles, 32 x 32"), Precision::Float32, Family::Tiled,
     false, 32, 32, 32, 32, 32, 1, 1, tiledShared(32, 4), false, 4,
     N_("32 x 32 tiles, 1024 threads per block (the most a block may have): a little less global "
        "traffic, the same two shared loads per multiply-add.")},
    {StepId::Reg1D, "reg1d", N_("4. 1D register blocking"), Precision::Float32, Family::Blocked,
     false, B1::kThreads, 1, B1::BM, B1::BN, B1::BK, B1::TM, 1,
     (B1::BM * B1::BK + B1::BK * B1::BN) * 4, false, 2,
     N_("Each thread computes 8 results down one column of a 64 x 64 tile. It loads B[k, col] from "
        "shared memory once and reuses it 8 times from a register: 9 shared loads for 8 "
        "multiply-adds instead of 16.")},
    {StepId::Reg2D, "reg2d", N_("5. 2D register blocking"), Precision::Float32, Family::Blocked,
     false, B2::kThreads, 1, B2::BM, B2::BN, B2::BK, B2::TM, B2::TN,
     (B2::BM * B2::BK + B2::BK * B2::BN) * 4, false, 3,
     N_("Each thread computes an 8 x 8 tile of a 128 x 128 block tile: 16 shared loads feed 64 "
        "multiply-adds, an outer product in registers. Loads are still one float at a time, and "
        "reading A's tile down a column collides in shared-memory banks.")},
    {StepId::Vec4, "vec4", N_("6. float4 loads, A transposed"), Precision::Float32, Family::Blocked,
     false, B2::kThreads, 1, B2::BM, B2::BN, B2::BK, B2::TM, B2::TN,
     (B2::BM * B2::BK + B2::BK * B2::BN) * 4, true, 7,
     N_("Global loads move four floats per instruction (float4), and A's tile is stored transposed "
        "so each thread's 8 values of A are contiguous: two 16-byte shared loads instead of eight. "
        "When K or N is not a multiple of 4 the kernel falls back to four checked loads.")},
    {StepId::Warp, "warp", N_("7. Warp tiles, double buffer"), Precision::Float32, Family::Blocked,
     false, W::kThreads, 1, W::kBM, W::kBN, W::kBK, W::TM, W::TN,
     2 * (W::kBK * (W::kBM + W::kPadA) + W::kBK * W::kBN) * 4, true, 0,
     N_("Each warp owns a 64 x 64 piece of a 128 x 256 tile, its lanes placed so a warp reads "
        "consecutive float4s from shared memory without conflicts. The next tile is fetched into "
        "registers while the current one is multiplied, then stored into a second buffer: one "
        "barrier per tile, and the wait for global memory hidden behind the arithmetic.")},
    {StepId::Cublas, "cublas", N_("8. cuBLAS SGEMM"), Precision::Float32, Family::Library, false,
     0, 0, 0, 0, 0, 0, 0, 0, false, 1,
     N_("cublasSgemm: NVIDIA's library, tuned per GPU and size with the same ideas plus many more "
        "(assembly-level register allocation, pipelined copies, split K). The bar to measure "
        "against.")},
    {StepId::CublasTf32, "cublas_tf32", N_("9. cuBLAS, TF32 tensor cores"), Precision::Tf32,
     Family::Library, false, 0, 0, 0, 0, 0, 0, 0, 0, false, 1,
     N_("cuBLAS on tensor cores, with inputs rounded to TF32 (10 mantissa bits instead of 23) and "
        "sums kept in float32. Much faster, and a different precision: compare its error.")},
    {StepId::Naive64, "naive_f64", N_("Naive (course), float64"), Precision::Float64, Family::Naive,
     true, kN, kN, kN, kN, 1, 1, 1, 0, false, 5,
     N_("The course's naive kernel in double precision: the same memory traffic doubled.")},
    {StepId::Tiled64, "tiled16_f64", N_("Shared tiles 16 x 16, float64"), Precision::Float64,
     Family::Tiled, false, 16, 16, 16, 16, 16, 1, 1, tiledShared(16, 8), false, 4,
     N_("The course's tiled kernel in double precision.")},
    {StepId::Cublas64, "cublas_f64", N_("cuBLAS DGEMM"), Precision::Float64, Family::Library, false,
     0, 0, 0, 0, 0, 0, 0, 0, false, 1,
     N_("cublasDgemm: float64 products. Hopper and Ampere data-centre GPUs run them on FP64 tensor "
        "cores, with float64 results.")},
}};
// clang-format on

}  // namespace

const char* precisionLabel(Precision p) {
  static constexpr EnumName<Precision> kNames[] = {
      {Precision::Float32, "float32"}, {Precision::Tf32, "TF32"}, {Precision::Float64, "float64"}};
  return nameOf(kNames, p);
}

int elementBytes(Precision p) {
  return p == Precision::Float64 ? 8 : 4;
}

const KeyedTable<StepInfo> kStepTable{kSteps};

nlohmann::json toJson(const SweepPoint& p) {
  return {{"n", p.n}, {"step", stepInfo(p.step).key}, {"gflops", p.gflops}, {"correct", p.ok}};
}

bool handWritten(const StepInfo& s) {
  return s.family != Family::Library;
}

std::span<const StepId> allStepIds() {
  static const std::vector<StepId> ids = column(kSteps, &StepInfo::id);
  return ids;
}

std::span<const StepId> sweepStepIds() {
  static constexpr StepId kSweep[] = {StepId::Naive, StepId::Swapped, StepId::Tiled16,
                                      StepId::Reg1D, StepId::Reg2D,   StepId::Vec4,
                                      StepId::Warp,  StepId::Cublas};
  return kSweep;
}

StepId libraryFor(Precision p) {
  return p == Precision::Float64 ? StepId::Cublas64 : StepId::Cublas;
}

StepLaunch stepLaunch(const StepInfo& s, int M, int N, int /*K*/) {
  StepLaunch c;
  if (s.family == Family::Library) return c;
  c.blockX = s.blockX;
  c.blockY = s.blockY;
  c.sharedBytes = s.sharedBytes;
  if (s.family == Family::Naive && s.courseMapping) {
    c.gridX = ceilDiv(M, s.blockX);  // x walks rows
    c.gridY = ceilDiv(N, s.blockY);
  } else {
    c.gridX = ceilDiv(N, s.tileN);
    c.gridY = ceilDiv(M, s.tileM);
  }
  return c;
}

double flops(int M, int N, int K) {
  return 2.0 * double(M) * double(N) * double(K);
}

double globalBytes(const StepInfo& s, int M, int N, int K) {
  const double e = elementBytes(s.precision);
  const double m = M, n = N, k = K;
  const double c = m * n * e;  // C written once
  switch (s.family) {
    case Family::Naive:
      return 2 * m * n * k * e + c;  // a row of A and a column of B per element
    case Family::Tiled:
    case Family::Blocked: {
      // Each block reads its tileM x K band of A and K x tileN band of B once.
      const double blocks = double(ceilDiv(M, s.tileM)) * double(ceilDiv(N, s.tileN));
      return blocks * (double(s.tileM) + double(s.tileN)) * k * e + c;
    }
    case Family::Library:
      return (m * k + k * n) * e + c;
  }
  return 0;
}

Status validate(const MatmulParams& p) {
  CUDALAB_TRY(checkRange(kSizeM, p.M));
  CUDALAB_TRY(checkRange(kSizeN, p.N));
  CUDALAB_TRY(checkRange(kSizeK, p.K));
  return checkRuns(p.warmup, p.runs);
}

Status checkMemory(const MatmulParams& p, std::size_t freeDeviceBytes) {
  // float64 A, B and C (the widest steps), with 64 MiB left for cuBLAS's workspace.
  const double need =
      (double(p.M) * p.K + double(p.K) * p.N + double(p.M) * p.N) * 8.0 + 64.0 * 1024 * 1024;
  if (need <= double(freeDeviceBytes)) return {};
  return Status::errorf(N_("A, B and C at %s x %s x %s in float64 need %s of device memory with "
                           "cuBLAS's workspace; %s is free. Choose smaller sizes."),
                        {std::to_string(p.M), std::to_string(p.N), std::to_string(p.K), mib(need),
                         mib(double(freeDeviceBytes))});
}

Status validateTile(const TileChoice& t, const BlockLimits& limits) {
  if (t.tile < 1) return Status::error(N_("A tile needs at least one element."));
  if (t.threads() > limits.maxThreadsPerBlock)
    return Status::errorf(
        N_("A %s x %s tile needs one thread per element of C's tile: %s threads per block. This "
           "device allows %s threads per block, so the largest square tile is %s x %s."),
        {std::to_string(t.tile), std::to_string(t.tile), thousands(t.threads()),
         thousands(limits.maxThreadsPerBlock),
         std::to_string(int(std::sqrt(double(limits.maxThreadsPerBlock)))),
         std::to_string(int(std::sqrt(double(limits.maxThreadsPerBlock))))});
  if (t.sharedBytes() > limits.sharedPerBlock)
    return Status::errorf(
        N_("A %s x %s %s tile of A and one of B need 2 x %s x %s x %s = %s bytes of shared memory "
           "per block. This device allows %s bytes."),
        {std::to_string(t.tile), std::to_string(t.tile), precisionLabel(t.precision),
         std::to_string(t.tile), std::to_string(t.tile), std::to_string(elementBytes(t.precision)),
         thousands(t.sharedBytes()), thousands(limits.sharedPerBlock)});
  return {};
}

Status validateLaunch(const StepInfo& s, const BlockLimits& limits) {
  if (s.family == Family::Library) return {};
  const int threads = s.blockX * s.blockY;
  if (threads > limits.maxThreadsPerBlock)
    return Status::errorf(N_("%s needs %s threads per block. This device allows %s threads."),
                          {s.label, thousands(threads), thousands(limits.maxThreadsPerBlock)});
  if (s.sharedBytes > limits.sharedPerBlock)
    return Status::errorf(
        N_("%s needs %s bytes of shared memory per block. This device allows %s bytes."),
        {s.label, thousands(s.sharedBytes), thousands(limits.sharedPerBlock)});
  return {};
}

int tileSteps(const StepInfo& s, int K) {
  if (s.family == Family::Library) return 0;
  return ceilDiv(K, std::max(1, s.tileK));
}

namespace {

// The C tile (in tiles) block (bx, by) computes.
TileIndex tileOfBlock(const StepInfo& s, int M, int N, int bx, int by) {
  const StepLaunch c = stepLaunch(s, M, N, 1);
  if (s.family == Family::Naive && s.courseMapping) return {bx, by};
  const int group = s.id == StepId::Warp ? W::kGroup : 0;
  return groupedTile(bx, by, c.gridX, c.gridY, group);
}

Range clip(long long begin, long long size, int limit) {
  Range r;
  r.begin = static_cast<int>(std::min<long long>(begin, limit));
  r.end = static_cast<int>(std::min<long long>(begin + size, limit));
  return r;
}

}  // namespace

Range blockRows(const StepInfo& s, int M, int N, int bx, int by) {
  const TileIndex t = tileOfBlock(s, M, N, bx, by);
  return clip(1LL * t.row * s.tileM, s.tileM, M);
}

Range blockCols(const StepInfo& s, int M, int N, int bx, int by) {
  const TileIndex t = tileOfBlock(s, M, N, bx, by);
  return clip(1LL * t.col * s.tileN, s.tileN, N);
}

Range stepK(const StepInfo& s, int K, int m) {
  return clip(1LL * m * std::max(1, s.tileK), std::max(1, s.tileK), K);
}

std::vector<Cell> ownedCells(const StepInfo& s, int thread) {
  std::vector<Cell> cells;
  if (s.family == Family::Library || thread < 0 || thread >= s.blockX * s.blockY) return cells;
  const int tx = thread % s.blockX, ty = thread / s.blockX;
  switch (s.family) {
    case Family::Naive:
      if (s.courseMapping)
        cells.push_back({tx, ty});  // i = x: the row
      else
        cells.push_back({ty, tx});
      break;
    case Family::Tiled:
      cells.push_back({ty, tx});
      break;
    case Family::Blocked:
      if (s.id == StepId::Warp) {
        for (int i = 0; i < W::TM; ++i)
          for (int j = 0; j < W::TN; ++j)
            cells.push_back({W::rowOf(thread, i), W::colOf(thread, j)});
      } else if (s.threadN == 1) {  // 1D: a column of threadM
        const int col = thread % s.tileN, group = thread / s.tileN;
        for (int r = 0; r < s.threadM; ++r)
          cells.push_back({group * s.threadM + r, col});
      } else {  // 2D: a threadM x threadN tile
        const int perRow = s.tileN / s.threadN;
        const int tCol = thread % perRow, tRow = thread / perRow;
        for (int i = 0; i < s.threadM; ++i)
          for (int j = 0; j < s.threadN; ++j)
            cells.push_back({tRow * s.threadM + i, tCol * s.threadN + j});
      }
      break;
    case Family::Library:
      break;
  }
  return cells;
}

}  // namespace cudalab::matmul
