// The tensor-cores lesson's CPU side: the step table, validation, the fragment-layout and bank
// models the pictures draw, and the inputs.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "tensor_cores/tensor_cores.hpp"

namespace cudalab::tensor_cores {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] Ladder
// ---------------------------------------------------------------------------------------------

// clang-format off
constexpr StepInfo kSteps[] = {
    {StepId::WmmaGlobal, "wmma_global", N_("1. WMMA, global memory"), Family::Wmma,
     Inputs::Chosen, true, 70, 80, 32, 32, 16, 128, 1, false, 5,
     N_("The matmul lesson ended on the CUDA cores, one multiply-add per thread per cycle. A tensor "
        "core multiplies whole 16 x 16 tiles: WMMA (nvcuda::wmma) lets one warp load a tile of A "
        "and one of B into opaque 'fragments' and multiply them in one call. Each warp computes a "
        "16 x 16 tile of C, reading its operands straight from global memory: every tile of A is "
        "read again by every warp that needs it, so memory, not arithmetic, sets the pace.")},
    {StepId::WmmaShared, "wmma_shared", N_("2. WMMA, shared tiles"), Family::Wmma,
     Inputs::Chosen, true, 70, 80, 128, 128, 32, 256, 1, false, 6,
     N_("Step 1 read each element of A and B from global memory many times. Now a block of 8 "
        "warps copies a 128 x 32 tile of A and a 32 x 128 tile of B into shared memory once, and "
        "each warp multiplies its 64 x 32 part of C from there: 8 fragments of C per warp, each "
        "fragment of A reused twice and of B four times. The rows are padded by 8 elements to "
        "spread them over the banks.")},
    {StepId::MmaLdmatrix, "mma_ldmatrix", N_("3. mma.sync + ldmatrix"), Family::Mma,
     Inputs::Chosen, true, 80, 80, 128, 128, 32, 256, 1, false, 2,
     N_("WMMA hides which lane holds which element. The PTX instruction mma.sync.m16n8k16 states "
        "it (see the fragment picture), and ldmatrix loads a warp's fragments from shared memory "
        "in that layout, four 8 x 8 matrices per instruction. Without padding, the eight rows one "
        "ldmatrix reads start in the same few banks and queue one after another: the counters "
        "show the conflicts.")},
    {StepId::MmaSwizzled, "mma_swizzled", N_("4. Swizzled shared memory"), Family::Mma,
     Inputs::Chosen, true, 80, 80, 128, 128, 32, 256, 1, true, 3,
     N_("Step 3's ldmatrix reads hit the same banks 4 times (A) and 8 times (B). Storing each "
        "16-byte chunk at its column XOR a few bits of its row (the swizzle) puts the eight rows "
        "of every read on different banks, with no padding: one pass per read instead of 4 or 8.")},
    {StepId::MmaPipelined, "mma_pipelined", N_("5. cp.async, 3 stages"), Family::Mma,
     Inputs::Chosen, true, 80, 80, 128, 128, 32, 256, 3, true, 0,
     N_("Until now every tile was loaded, then waited for, then multiplied: the tensor cores sat "
        "idle during each load. cp.async copies global memory to shared memory without passing "
        "through registers and without waiting; with three buffers, the next two tiles load while "
        "the current one is multiplied.")},
    {StepId::WgmmaTma, "wgmma_tma", N_("6. Hopper: TMA and wgmma"), Family::Wgmma,
     Inputs::Chosen, true, 90, 90, 128, 128, 64, 256, 4, true, 4,
     N_("Step 5 still moved every tile through the threads' own instructions and fed the tensor "
        "cores one warp at a time. Hopper adds the Tensor Memory Accelerator: one thread asks it "
        "for a whole tile, which it copies into shared memory in the swizzled layout, telling an "
        "mbarrier when the bytes have arrived; and wgmma, where four warps together (a "
        "warpgroup) multiply 64 x 128 x 16 at once, reading both operands from shared memory "
        "without ldmatrix. This step reads B transposed (N x K), so both operands are K-major.")},
    {StepId::WgmmaWs, "wgmma_ws", N_("7. Warp specialisation"),
     Family::Wgmma, Inputs::Chosen, true, 90, 90, 128, 256, 64, 384, 4, true, 1,
     N_("In step 6 every warp waited for each tile and for the other warpgroup before the next "
        "load could start. Now one warpgroup only loads: it waits until a stage is free, asks "
        "TMA for its tiles and goes on; two warpgroups only multiply, each 64 x 256 of a "
        "128 x 256 tile of C, and hand each stage back when done. setmaxnreg moves registers "
        "from the loader, which needs few, to the multipliers, which hold 128 accumulators "
        "per thread. And the blocks run in groups of 16 tile rows, so that those on the GPU at the "
        "same time read a few rows of A and columns of B, which stay in the L2 cache.")},
    {StepId::CublasBf16, "cublas_bf16", N_("cuBLAS, BF16"), Family::Library, Inputs::BFloat16,
     true, 80, 80, 0, 0, 0, 0, 0, false, 7,
     N_("cublasGemmEx with BF16 inputs and float32 accumulation: NVIDIA's library, which on Hopper "
        "uses the warpgroup instructions (wgmma) and the Tensor Memory Accelerator this lesson's "
        "later steps introduce. The bar to measure against.")},
    {StepId::CublasHalf, "cublas_fp16", N_("cuBLAS, FP16"), Family::Library, Inputs::Half, true,
     70, 70, 0, 0, 0, 0, 0, false, 7,
     N_("The same with FP16 inputs: as fast as BF16 on the tensor cores; FP16 has three more bits "
        "of mantissa and a far smaller range.")},
    {StepId::CublasTf32, "cublas_tf32", N_("cuBLAS, TF32"), Family::Library, Inputs::Float32,
     true, 80, 80, 0, 0, 0, 0, 0, false, 7,
     N_("float32 inputs rounded to TF32 (10 mantissa bits) by the tensor cores: half the speed of "
        "BF16, as each input is twice as wide, and no change to a float32 program's data.")},
    {StepId::CublasSgemm, "cublas_sgemm", N_("cuBLAS SGEMM, float32"), Family::Library,
     Inputs::Float32, false, 0, 0, 0, 0, 0, 0, 0, false, 7,
     N_("cublasSgemm on the CUDA cores, the ceiling of the matmul lesson's ladder: how far the "
        "tensor cores are above it.")},
    {StepId::CublasLtFp8, "cublaslt_fp8", N_("cuBLASLt, FP8 E4M3"), Family::Library,
     Inputs::Fp8E4m3, true, 89, 89, 0, 0, 0, 0, 0, false, 7,
     N_("Inputs rounded to FP8 E4M3 (3 mantissa bits) and multiplied by cuBLASLt, the lower-level "
        "library behind cuBLAS, with float32 accumulation: twice BF16's rate on Hopper, as each "
        "input is half as wide. Checked against the exact product of the rounded inputs (the "
        "precision panel shows what the rounding itself costs); it computes the padded sizes.")},
};
// clang-format on

}  // namespace

const KeyedTable<StepInfo> kStepTable{kSteps};

const char* formatLabel(InputFormat f) {
  return f == InputFormat::Half ? "FP16" : "BF16";
}

std::span<const StepId> allStepIds() {
  static const std::vector<StepId> ids = column(kSteps, &StepInfo::id);
  return ids;
}

bool handWritten(const StepInfo& s) {
  return s.family != Family::Library;
}

StepId libraryFor(InputFormat f) {
  return f == InputFormat::Half ? StepId::CublasHalf : StepId::CublasBf16;
}

int minArch(const StepInfo& s, InputFormat f) {
  return inputsOf(s, f) == Inputs::Half ? s.minArchHalf : s.minArchBf16;
}

std::string archNeeded(const StepInfo& s, InputFormat f) {
  const int a = minArch(s, f);
  if (!a) return "-";
  return "sm_" + std::to_string(a) + (s.family == Family::Wgmma ? "a" : "");
}

Inputs inputsOf(const StepInfo& s, InputFormat f) {
  if (s.inputs != Inputs::Chosen) return s.inputs;
  return f == InputFormat::Half ? Inputs::Half : Inputs::BFloat16;
}

std::string tileText(const StepInfo& s) {
  if (!handWritten(s)) return s.id == StepId::CublasLtFp8 ? "cuBLASLt" : "cuBLAS";
  return std::to_string(s.tileM) + " x " + std::to_string(s.tileN) + " x " +
         std::to_string(s.tileK);
}

double peakScale(Inputs in) {
  return in == Inputs::Fp8E4m3 ? 2.0 : in == Inputs::Float32 ? 0.5 : 1.0;
}

int inputBytes(Inputs in) {
  return in == Inputs::Float32 ? 4 : in == Inputs::Fp8E4m3 ? 1 : 2;
}

Padded padded(int M, int N, int K) {
  auto up = [](int v, int m) { return (std::max(v, 1) + m - 1) / m * m; };
  return {up(M, 128), up(N, 256), up(K, 64)};
}

double flops(int M, int N, int K) {
  return 2.0 * M * N * K;
}

double tensorInstructions(const StepInfo& s, int M, int N, int K) {
  const double mnk = double(M) * N * K;
  if (s.family == Family::Wgmma) return 4 * mnk / (64.0 * s.tileN * 16);
  return mnk / (16.0 * 8 * 16);
}

double globalBytes(const StepInfo& s, InputFormat f, int M, int N, int K) {
  const double in = inputBytes(inputsOf(s, f));
  const double a = double(M) * K * in, b = double(K) * N * in, c = double(M) * N * 4;
  if (!handWritten(s)) return a + b + c;
  // Every block of a row of blocks reads the same band of A, every block of a column of blocks
  // the same band of B.
  const double blockCols = std::ceil(double(N) / s.tileN),
               blockRows = std::ceil(double(M) / s.tileM);
  return a * blockCols + b * blockRows + c;
}

double errorBound(int K) {
  // 2 u per addition (truncation), K of them, plus 3 u of headroom for the reference itself.
  return (2.0 * std::max(1, K) + 3) * std::ldexp(1.0, -24);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Validation
// ---------------------------------------------------------------------------------------------

Status validate(const TensorParams& p) {
  CUDALAB_TRY(checkRange(kSizeM, p.M));
  CUDALAB_TRY(checkRange(kSizeN, p.N));
  CUDALAB_TRY(checkRange(kSizeK, p.K));
  return checkRuns(p.warmup, p.runs);
}

std::size_t deviceBytesNeeded(const TensorParams& p) {
  const Padded q = padded(p.M, p.N, p.K);
  const double a = double(q.M) * q.K, b = double(q.K) * q.N, c = double(q.M) * q.N;
  // A and B in BF16, FP16, float32 and FP8, B transposed in BF16 and FP16, C in float32, 64 MiB
  // for cuBLAS's workspace and 32 MiB for cuBLASLt's.
  return static_cast<std::size_t>((a + b) * (2 + 2 + 4 + 1) + b * (2 + 2) + c * 4 +
                                  96.0 * 1024 * 1024);
}

Status checkMemory(const TensorParams& p, std::size_t freeDeviceBytes) {
  const double need = double(deviceBytesNeeded(p));
  if (need <= double(freeDeviceBytes)) return {};
  return Status::errorf(N_("A and B in BF16, FP16 and float32 (B also transposed in 16 bits) and C "
                           "in float32 at %s x %s x %s need %s of device memory with cuBLAS's "
                           "workspace; %s is free. Choose smaller sizes."),
                        {std::to_string(p.M), std::to_string(p.N), std::to_string(p.K), mib(need),
                         mib(double(freeDeviceBytes))});
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Models
// ---------------------------------------------------------------------------------------------

// The PTX ISA's figures for mma.m16n8k16 with 16-bit inputs: a lane's group is lane / 4 (the row
// it starts on) and its place in the group lane % 4 (which pair of columns). A's four registers
// cover the four 8 x 8 quarters (rows +0/+8, columns +0/+8, in the order a0: top left, a1: bottom
// left, a2: top right, a3: bottom right); B's two the two 8-deep halves of K; C's four the two
// 8-row halves, two neighbours each.
std::vector<Element> laneElements(Operand op, int lane) {
  const int group = lane / 4, inGroup = lane % 4;
  std::vector<Element> out;
  switch (op) {
    case Operand::A:
      for (int reg = 0; reg < 4; ++reg)
        for (int half = 0; half < 2; ++half)
          out.push_back({group + 8 * (reg % 2), 2 * inGroup + half + 8 * (reg / 2)});
      break;
    case Operand::B:
      for (int reg = 0; reg < 2; ++reg)
        for (int half = 0; half < 2; ++half)
          out.push_back({2 * inGroup + half + 8 * reg, group});
      break;
    case Operand::C:
      for (int i = 0; i < 4; ++i)
        out.push_back({group + 8 * (i / 2), 2 * inGroup + i % 2});
      break;
  }
  return out;
}

Holder holderOf(Operand op, int row, int col) {
  for (int lane = 0; lane < 32; ++lane) {
    const std::vector<Element> e = laneElements(op, lane);
    for (std::size_t i = 0; i < e.size(); ++i)
      if (e[i] == Element{row, col}) return {lane, static_cast<int>(i)};
  }
  return {-1, -1};
}

int storedChunk(Tile t, int row, int chunk, bool swizzled) {
  if (!swizzled) return chunk;
  return t == Tile::A ? chunk ^ ((row >> 1) & 3) : chunk ^ (row & 7);
}

int firstBank(Tile t, int row, int chunk, bool swizzled) {
  const int rowBytes = 2 * (t == Tile::A ? kTileColsA : kTileColsB);
  const int byte = row * rowBytes + 16 * storedChunk(t, row, chunk, swizzled);
  return (byte / 4) % 32;
}

int ldmatrixWays(Tile t, int row0, int chunk, bool swizzled) {
  // Each row is 16 bytes, four banks: rows that start on the same bank queue.
  std::array<int, 32> uses{};
  int worst = 0;
  for (int r = row0; r < row0 + 8; ++r)
    worst = std::max(worst, ++uses[static_cast<std::size_t>(firstBank(t, r, chunk, swizzled))]);
  return worst;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Pipeline model
// ---------------------------------------------------------------------------------------------

PipelineRun pipelineModel(int tiles, int stages, double loadTime, double mmaTime) {
  PipelineRun r;
  const int S = std::max(1, stages);
  std::vector<double> loadEnd, mmaEnd;
  for (int t = 0; t < std::max(0, tiles); ++t) {
    // Its buffer is free once the multiply of the tile that used it before has ended.
    const double free = t >= S ? mmaEnd[static_cast<std::size_t>(t - S)] : 0.0;
    // With one stage the load also waits for the previous multiply (the same buffer).
    const double load = S == 1 && t > 0 ? std::max(free, mmaEnd.back()) : free;
    loadEnd.push_back(load + loadTime);
    const double mma = std::max(loadEnd.back(), t > 0 ? mmaEnd.back() : 0.0);
    mmaEnd.push_back(mma + mmaTime);
    r.events.push_back({t, true, load, loadEnd.back()});
    r.events.push_back({t, false, mma, mmaEnd.back()});
  }
  r.total = mmaEnd.empty() ? 0.0 : mmaEnd.back();
  r.mmaBusy = r.total > 0 ? tiles * mmaTime / r.total : 0.0;
  return r;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Inputs
// ---------------------------------------------------------------------------------------------

std::vector<float> randomInputs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng{seed};
  std::uniform_int_distribution<int> u(-256, 256);
  std::vector<float> v(n);
  for (float& x : v)
    x = static_cast<float>(u(rng)) / 256.0f;
  return v;
}

}  // namespace cudalab::tensor_cores
