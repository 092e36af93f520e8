// The memory lesson's kernels and their measurement.
//
// Every kernel here has a twin in access_patterns.cpp (threadAddress) that computes the same
// addresses from the same launch shape: change one, change the other.
//
// [SECTION] Kernels            strided copy, traversals, structures, transposes, matrix products,
//                              shared memory with a stride; fills and checks
// [SECTION] Launchers          one checked launch per kernel
// [SECTION] Transpose ladder   a Workload per step, measured with common/measurement
// [SECTION] Strided copy       a Workload per stride
// [SECTION] Model check        runModelKernel
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/runtime_info.hpp"
#include "common/translatable.hpp"
#include "memory/memory.hpp"

namespace cudalab::memory {

// ---------------------------------------------------------------------------------------------
// [SECTION] Kernels
// ---------------------------------------------------------------------------------------------

namespace {

constexpr int kBlock1D = 256;
constexpr std::uint32_t kPoisonBits = 0xffffffffu;  // a NaN no kernel here produces

// A reproducible value for element i: what the fill kernel writes and the CPU expects back.
__host__ __device__ inline float hashValue(std::uint64_t i, std::uint32_t seed) {
  std::uint64_t z = i * 0x9e3779b97f4a7c15ull + seed;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return float(z >> 40) * (1.0f / 16777216.0f);  // 24 bits: exact in float, in [0, 1)
}

__global__ void fill_hash(float* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = hashValue(i, seed);
}

// Lane l of each warp copies element l * stride + offset: the stride spreads a warp's elements
// over more sectors without changing how many bytes it needs.
template <class T>
__global__ void strided_copy(const T* in, T* out, long long count, int stride, int offset) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i * stride + offset] = in[i * stride + offset];
}

// Collects what the strided copy wrote (for the CPU to check) and counts elements it should
// not have touched but did: the one after each copied element, and those before the offset.
__global__ void gather_strided(const float* out, float* compact, long long count, int stride,
                               int offset, unsigned long long* strays) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long long at = i * stride + offset;
  compact[i] = out[at];
  unsigned long long bad = 0;
  if (stride > 1 && i + 1 < count && __float_as_uint(out[at + 1]) != kPoisonBits) ++bad;
  if (i == 0)
    for (int k = 0; k < offset; ++k)
      bad += __float_as_uint(out[k]) != kPoisonBits;
  if (bad) atomicAdd(strays, bad);
}

// Row-major rows x cols, thread x along a row: lanes read neighbouring addresses.
__global__ void traverse_rows(const float* in, float* out, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[std::size_t(y) * cols + x] = in[std::size_t(y) * cols + x];
}

// The same array with thread x down a column: lanes are a row (cols floats) apart.
__global__ void traverse_columns(const float* in, float* out, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < rows && y < cols) out[std::size_t(x) * cols + y] = in[std::size_t(x) * cols + y];
}

template <int F>
struct Particle {
  float v[F];  // v[0] is x
};

// An array of structures read for one field: the other fields ride along in every sector.
template <int F>
__global__ void read_aos(const Particle<F>* particles, float* out, long long count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = particles[i].v[0];
}

// A structure of arrays: x[] alone, contiguous.
__global__ void read_soa(const float* x, float* out, long long count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = x[i];
}

// Step "naive": the course's B[x, y] = A[y, x], x from threadIdx.x. A (rows x cols) is read along
// its rows; B (cols x rows) is written down its columns, rows floats apart.
__global__ void transpose_naive(const float* A, float* B, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) B[std::size_t(x) * rows + y] = A[std::size_t(y) * cols + x];
}

// Steps "tiled", "padded" and "padded4". A block moves one 32x32 tile: it reads the tile of A at
// (blockIdx.x, blockIdx.y) by rows into shared memory, then writes the tile of B at (blockIdx.y,
// blockIdx.x) by rows, reading shared memory by columns. PAD = 1 gives the tile 33 columns so a
// column spans 32 banks; E elements per thread with a 32 x (32 / E) block.
template <int PAD, int E>
__global__ void transpose_tiled(const float* A, float* B, int rows, int cols) {
  __shared__ float tile[kTile][kTile + PAD];
  constexpr int kStep = kTile / E;  // blockDim.y
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kStep)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = A[std::size_t(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kStep)
    if (x < rows && y + j < cols)
      B[std::size_t(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The same round trip through a tile without transposing: the tile is read back by rows.
template <int PAD, int E>
__global__ void copy_through_tile(const float* A, float* B, int rows, int cols) {
  __shared__ float tile[kTile][kTile + PAD];
  constexpr int kStep = kTile / E;
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kStep)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = A[std::size_t(y + j) * cols + x];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kTile; j += kStep)
    if (x < cols && y + j < rows)
      B[std::size_t(y + j) * cols + x] = tile[threadIdx.y + j][threadIdx.x];
}

// Step "copy": B = A with the tiled transposes' launch shape, the ceiling they are compared with.
template <int E>
__global__ void copy_tiled(const float* A, float* B, int rows, int cols) {
  constexpr int kStep = kTile / E;
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kStep)
    if (x < cols && y + j < rows)
      B[std::size_t(y + j) * cols + x] = A[std::size_t(y + j) * cols + x];
}

// The course's naive product, one thread per C[i][j] with i (the row) on thread x: in a warp,
// A[i][k] walks down a column of A and B[k][j] is one element for all lanes.
__global__ void matmul_course(const float* A, const float* B, float* C, int M, int N, int K) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  float sum = 0;
  for (int k = 0; k < K; ++k)
    sum += A[std::size_t(i) * K + k] * B[std::size_t(k) * N + j];
  C[std::size_t(i) * N + j] = sum;
}

// The same with j on thread x: A[i][k] is one element for the warp, B[k][j] a row of B.
__global__ void matmul_swapped(const float* A, const float* B, float* C, int M, int N, int K) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  float sum = 0;
  for (int k = 0; k < K; ++k)
    sum += A[std::size_t(i) * K + k] * B[std::size_t(k) * N + j];
  C[std::size_t(i) * N + j] = sum;
}

constexpr int kSharedElements = 32 * 32 + 32 + 1;  // lane 31 at stride 32, offset 32

template <class T>
__device__ T fromIndex(int i) {
  return T(i);
}
template <>
__device__ float4 fromIndex<float4>(int i) {
  return make_float4(float(i), 0, 0, 0);
}

// One warp per block reading shared element lane * stride + offset.
template <class T>
__global__ void shared_strided(T* out, int stride, int offset) {
  __shared__ T buf[kSharedElements];
  for (int k = threadIdx.x; k < kSharedElements; k += blockDim.x)
    buf[k] = fromIndex<T>(k);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf[threadIdx.x * stride + offset];
}

// The three kernels built on a 32x32 tile, for one padding and elements-per-thread choice.
template <int PAD, int E>
void launchTileKernel(KernelId k, dim3 grid, dim3 block, const float* A, float* B, int rows,
                      int cols, cudaStream_t stream) {
  if (k == KernelId::TransposeTiled)
    transpose_tiled<PAD, E><<<grid, block, 0, stream>>>(A, B, rows, cols);
  else if (k == KernelId::CopyThroughTile)
    copy_through_tile<PAD, E><<<grid, block, 0, stream>>>(A, B, rows, cols);
  else
    copy_tiled<E><<<grid, block, 0, stream>>>(A, B, rows, cols);
}

unsigned blocksFor(long long n, int block) {
  return static_cast<unsigned>((n + block - 1) / block);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Launchers
// ---------------------------------------------------------------------------------------------

namespace {

Status fill(float* p, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
  fill_hash<<<1024, 256, 0, stream>>>(p, n, seed);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

template <class T>
Status launchStrided(const void* in, void* out, long long count, int stride, int offset,
                     cudaStream_t stream) {
  strided_copy<T><<<blocksFor(count, kBlock1D), kBlock1D, 0, stream>>>(
      static_cast<const T*>(in), static_cast<T*>(out), count, stride, offset);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

Status launchStridedBytes(int elementBytes, const void* in, void* out, long long count, int stride,
                          int offset, cudaStream_t stream) {
  switch (elementBytes) {
    case 1:
      return launchStrided<std::uint8_t>(in, out, count, stride, offset, stream);
    case 2:
      return launchStrided<std::uint16_t>(in, out, count, stride, offset, stream);
    case 4:
      return launchStrided<float>(in, out, count, stride, offset, stream);
    case 8:
      return launchStrided<double>(in, out, count, stride, offset, stream);
    case 16:
      return launchStrided<float4>(in, out, count, stride, offset, stream);
    default:
      return Status::error(N_("Element size must be 1, 2, 4, 8 or 16 bytes."));
  }
}

template <int E>
dim3 tileBlock() {
  return dim3(kTile, kTile / E);
}

dim3 tileGrid(int rows, int cols) {
  return dim3(blocksFor(cols, kTile), blocksFor(rows, kTile));
}

}  // namespace

Status launchStridedCopy(const float* in, float* out, long long count, int stride, int offset,
                         cudaStream_t stream) {
  return launchStrided<float>(in, out, count, stride, offset, stream);
}

Status launchTranspose(TransposeStep step, const float* A, float* B, int rows, int cols,
                       cudaStream_t stream) {
  CUDALAB_TRY(validate(TransposeParams{rows, cols}));
  const dim3 grid = tileGrid(rows, cols);
  switch (step) {
    case TransposeStep::Memcpy:
      CUDALAB_CUDA_TRY(cudaMemcpyAsync(B, A, std::size_t(rows) * cols * sizeof(float),
                                       cudaMemcpyDeviceToDevice, stream));
      return {};
    case TransposeStep::Copy:
      copy_tiled<4><<<grid, tileBlock<4>(), 0, stream>>>(A, B, rows, cols);
      break;
    case TransposeStep::Naive:
      transpose_naive<<<dim3(blocksFor(cols, 32), blocksFor(rows, 8)), dim3(32, 8), 0, stream>>>(
          A, B, rows, cols);
      break;
    case TransposeStep::Tiled:
      transpose_tiled<0, 1><<<grid, tileBlock<1>(), 0, stream>>>(A, B, rows, cols);
      break;
    case TransposeStep::Padded:
      transpose_tiled<1, 1><<<grid, tileBlock<1>(), 0, stream>>>(A, B, rows, cols);
      break;
    case TransposeStep::PaddedFour:
      transpose_tiled<1, 4><<<grid, tileBlock<4>(), 0, stream>>>(A, B, rows, cols);
      break;
  }
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Transpose ladder
// ---------------------------------------------------------------------------------------------

namespace {

// A and its transpose held on both sides; one step launched per measure().
class TransposeWorkload final : public Workload {
 public:
  explicit TransposeWorkload(const TransposeParams& p) : p_(p) {}
  void setStep(TransposeStep s) { step_ = s; }

  Status prepare(cudaStream_t stream) override {
    if (dA_.get()) return {};  // the matrices are shared by every step
    const std::size_t n = std::size_t(p_.rows) * std::size_t(p_.cols);
    CUDALAB_TRY(dA_.allocate(n));
    CUDALAB_TRY(dB_.allocate(n));
    CUDALAB_TRY(hB_.allocate(n));
    a_.resize(n);
    at_.resize(n);
    std::mt19937 rng{std::random_device{}()};
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float& v : a_)
      v = u(rng);
    transposeCpu(a_.data(), at_.data(), p_.rows, p_.cols);
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(dA_.get(), a_.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
    return {};
  }
  Status poison(cudaStream_t stream) override {
    CUDALAB_CUDA_TRY(cudaMemsetAsync(dB_.get(), 0xff, dB_.bytes(), stream));
    return {};
  }
  Status copyIn(cudaStream_t) override { return {}; }  // A stays on the device
  Status launch(cudaStream_t stream) override {
    return launchTranspose(step_, dA_.get(), dB_.get(), p_.rows, p_.cols, stream);
  }
  Status copyOut(cudaStream_t stream) override {
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(hB_.get(), dB_.get(), dB_.bytes(), cudaMemcpyDeviceToHost, stream));
    return {};
  }
  Result<Correctness> verify() override {
    // A transpose moves values without arithmetic: every element must match exactly.
    const std::vector<float>& want = transposeStep(step_).ceiling ? a_ : at_;
    Correctness c;
    c.ran = true;
    c.checked = want.size();
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (std::memcmp(&hB_.get()[i], &want[i], sizeof(float)) == 0) continue;
      if (c.wrong++ == 0) c.firstWrong = i;
    }
    return c;
  }
  double kernelBytes() const override { return 2.0 * double(p_.rows) * double(p_.cols) * 4.0; }
  double h2dBytes() const override { return 0; }
  double d2hBytes() const override { return double(p_.rows) * double(p_.cols) * 4.0; }

 private:
  TransposeParams p_;
  TransposeStep step_ = TransposeStep::Memcpy;
  DeviceArray<float> dA_, dB_;
  PinnedArray<float> hB_;
  std::vector<float> a_, at_;
};

}  // namespace

Result<TransposeReport> measureTranspose(const TransposeParams& p, const std::atomic<bool>* cancel,
                                         const Progress& progress) {
  CUDALAB_TRY(validateAndFit(p));
  TransposeReport report;
  report.p = p;
  report.device = currentDeviceName();
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  TransposeWorkload w(p);
  StreamDrain drain(stream.get());
  const auto steps = transposeSteps();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (progress) progress(float(i) / float(steps.size()), steps[i].label);
    w.setStep(steps[i].step);
    Result<Measurement> m = measure(w, {p.warmup, p.runs, false}, cancel, stream.get());
    if (!m) return m.status();
    TransposeResult r;
    r.step = steps[i].step;
    r.m = *m;
    r.gbps = m->kernelGBps();
    if (steps[i].ceiling) report.ceilingGBps = std::max(report.ceilingGBps, r.gbps);
    report.steps.push_back(std::move(r));
  }
  for (TransposeResult& r : report.steps)
    r.ofCeiling = report.ceilingGBps > 0 ? r.gbps / report.ceilingGBps : 0;
  if (progress) progress(1, N_("done"));
  return report;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Strided copy
// ---------------------------------------------------------------------------------------------

namespace {

class StridedWorkload final : public Workload {
 public:
  explicit StridedWorkload(const StridedParams& p) : p_(p) {}
  void setStride(int s) { stride_ = s; }

  Status prepare(cudaStream_t stream) override {
    if (!in_.get()) {
      // Sized for the largest stride, filled once: every stride reads the same array.
      const std::size_t span =
          std::size_t(p_.count - 1) * std::size_t(p_.maxStride) + std::size_t(p_.offset) + 1;
      CUDALAB_TRY(in_.allocate(span));
      CUDALAB_TRY(out_.allocate(span));
      CUDALAB_TRY(compact_.allocate(std::size_t(p_.count)));
      CUDALAB_TRY(strays_.allocate(1));
      CUDALAB_TRY(host_.allocate(std::size_t(p_.count)));
      CUDALAB_TRY(hostStrays_.allocate(1));
      seed_ = std::random_device{}();
      CUDALAB_TRY(fill(in_.get(), span, seed_, stream));
    }
    return {};
  }
  Status poison(cudaStream_t stream) override {
    CUDALAB_CUDA_TRY(cudaMemsetAsync(out_.get(), 0xff, spanBytes(), stream));
    CUDALAB_CUDA_TRY(cudaMemsetAsync(strays_.get(), 0, sizeof(unsigned long long), stream));
    return {};
  }
  Status copyIn(cudaStream_t) override { return {}; }
  Status launch(cudaStream_t stream) override {
    return launchStridedCopy(in_.get(), out_.get(), p_.count, stride_, p_.offset, stream);
  }
  Status copyOut(cudaStream_t stream) override {
    gather_strided<<<blocksFor(p_.count, kBlock1D), kBlock1D, 0, stream>>>(
        out_.get(), compact_.get(), p_.count, stride_, p_.offset, strays_.get());
    CUDALAB_CUDA_TRY_LAUNCH();
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(host_.get(), compact_.get(), compact_.bytes(),
                                     cudaMemcpyDeviceToHost, stream));
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(hostStrays_.get(), strays_.get(), sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, stream));
    return {};
  }
  Result<Correctness> verify() override {
    Correctness c;
    c.ran = true;
    c.checked = std::size_t(p_.count);
    for (long long i = 0; i < p_.count; ++i) {
      const float want = hashValue(std::uint64_t(i * stride_ + p_.offset), seed_);
      if (host_.get()[i] == want) continue;
      if (c.wrong++ == 0) c.firstWrong = std::size_t(i);
    }
    c.wrong += hostStrays_.get()[0];  // elements written that should have stayed poisoned
    return c;
  }
  double kernelBytes() const override { return 2.0 * double(p_.count) * 4.0; }
  double h2dBytes() const override { return 0; }
  double d2hBytes() const override { return double(p_.count) * 4.0; }

 private:
  std::size_t spanBytes() const {
    return (std::size_t(p_.count - 1) * std::size_t(stride_) + std::size_t(p_.offset) + 1) *
           sizeof(float);
  }
  StridedParams p_;
  int stride_ = 1;
  std::uint32_t seed_ = 0;
  DeviceArray<float> in_, out_, compact_;
  DeviceArray<unsigned long long> strays_;
  PinnedArray<float> host_;
  PinnedArray<unsigned long long> hostStrays_;
};

}  // namespace

Result<StridedReport> measureStridedCopy(const StridedParams& p, const std::atomic<bool>* cancel,
                                         const Progress& progress) {
  CUDALAB_TRY(validateAndFit(p));
  StridedReport report;
  report.p = p;
  report.device = currentDeviceName();
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  StridedWorkload w(p);
  StreamDrain drain(stream.get());
  for (int s = 1; s <= p.maxStride; ++s) {
    if (progress)
      progress(float(s - 1) / float(p.maxStride),
               Phrase{N_("stride %s"), {std::to_string(s)}}.packed());
    w.setStride(s);
    Result<Measurement> m = measure(w, {p.warmup, p.runs, false}, cancel, stream.get());
    if (!m) return m.status();
    StridedPoint pt;
    pt.stride = s;
    pt.m = *m;
    pt.gbps = m->kernelGBps();
    pt.modelEfficiency = stridedEfficiency(s, p.offset);
    report.points.push_back(std::move(pt));
  }
  const StridedPoint& first = report.points.front();
  for (StridedPoint& pt : report.points)
    pt.predictedGBps = first.gbps * pt.modelEfficiency / first.modelEfficiency;
  if (progress) progress(1, N_("done"));
  return report;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Model check
// ---------------------------------------------------------------------------------------------

Status runModelKernel(const ModelCheckCase& c) {
  const PatternParams& p = c.p;
  CUDALAB_TRY(validate(p));
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  cudaStream_t s = stream.get();
  // Generous buffers: the largest index any kernel of the case touches, in bytes.
  const std::size_t e = std::size_t(p.elementBytes);
  std::size_t bytes =
      std::size_t(p.count) * std::size_t(std::max(p.stride, 1)) * e + std::size_t(p.offset + 1) * e;
  bytes = std::max(bytes, std::size_t(p.count) * std::size_t(p.structFloats) * 4);
  bytes = std::max(bytes, std::size_t(p.rows) * std::size_t(p.cols) * 4);
  bytes = std::max(bytes, std::size_t(std::max(p.rows, p.cols)) * std::size_t(p.inner) * 4);
  bytes = std::max(bytes, std::size_t(256 * 32) * 16);
  DeviceArray<float> a, b, cOut;
  const std::size_t floats = (bytes + 3) / 4 + 4;
  CUDALAB_TRY(a.allocate(floats));
  CUDALAB_TRY(b.allocate(floats));
  CUDALAB_TRY(cOut.allocate(floats));
  StreamDrain drain(s);
  CUDALAB_TRY(fill(a.get(), floats, 1u, s));
  CUDALAB_TRY(fill(b.get(), floats, 2u, s));
  const LaunchShape shape = launchShape(c.kernel, p);
  const dim3 grid(unsigned(shape.gridX), unsigned(shape.gridY));
  const dim3 block(unsigned(shape.blockX), unsigned(shape.blockY));
  switch (c.kernel) {
    case KernelId::StridedCopy:
      CUDALAB_TRY(
          launchStridedBytes(p.elementBytes, a.get(), b.get(), p.count, p.stride, p.offset, s));
      break;
    case KernelId::TraverseRows:
      traverse_rows<<<grid, block, 0, s>>>(a.get(), b.get(), p.rows, p.cols);
      break;
    case KernelId::TraverseColumns:
      traverse_columns<<<grid, block, 0, s>>>(a.get(), b.get(), p.rows, p.cols);
      break;
    case KernelId::ReadAoS:
      switch (p.structFloats) {
#define CUDALAB_AOS(F)                                                                            \
  case F:                                                                                         \
    read_aos<F>                                                                                   \
        <<<grid, block, 0, s>>>(reinterpret_cast<const Particle<F>*>(a.get()), b.get(), p.count); \
    break;
        CUDALAB_AOS(2)
        CUDALAB_AOS(3)
        CUDALAB_AOS(4)
        CUDALAB_AOS(5)
        CUDALAB_AOS(6)
        CUDALAB_AOS(7)
        CUDALAB_AOS(8)
#undef CUDALAB_AOS
        default:
          return Status::error(N_("Floats per structure must be between 2 and 8."));
      }
      break;
    case KernelId::ReadSoA:
      read_soa<<<grid, block, 0, s>>>(a.get(), b.get(), p.count);
      break;
    case KernelId::TransposeNaive:
      transpose_naive<<<grid, block, 0, s>>>(a.get(), b.get(), p.rows, p.cols);
      break;
    case KernelId::TransposeTiled:
    case KernelId::CopyThroughTile:
    case KernelId::CopyTiled: {
      using Launch = void (*)(KernelId, dim3, dim3, const float*, float*, int, int, cudaStream_t);
      const bool four = p.elementsPerThread == 4;
      const Launch launch = p.padded ? (four ? launchTileKernel<1, 4> : launchTileKernel<1, 1>)
                                     : (four ? launchTileKernel<0, 4> : launchTileKernel<0, 1>);
      launch(c.kernel, grid, block, a.get(), b.get(), p.rows, p.cols, s);
      break;
    }
    case KernelId::MatmulCourse:
      matmul_course<<<grid, block, 0, s>>>(a.get(), b.get(), cOut.get(), p.rows, p.cols, p.inner);
      break;
    case KernelId::MatmulSwapped:
      matmul_swapped<<<grid, block, 0, s>>>(a.get(), b.get(), cOut.get(), p.rows, p.cols, p.inner);
      break;
    case KernelId::SharedStrided: {
      // Many blocks doing the same thing: the counters then dwarf the fill's.
      const unsigned blocks = 256;
      switch (p.elementBytes) {
        case 1:
          shared_strided<std::uint8_t>
              <<<blocks, 32, 0, s>>>(reinterpret_cast<std::uint8_t*>(b.get()), p.stride, p.offset);
          break;
        case 2:
          shared_strided<std::uint16_t>
              <<<blocks, 32, 0, s>>>(reinterpret_cast<std::uint16_t*>(b.get()), p.stride, p.offset);
          break;
        case 4:
          shared_strided<float><<<blocks, 32, 0, s>>>(b.get(), p.stride, p.offset);
          break;
        case 8:
          shared_strided<double>
              <<<blocks, 32, 0, s>>>(reinterpret_cast<double*>(b.get()), p.stride, p.offset);
          break;
        case 16:
          shared_strided<float4>
              <<<blocks, 32, 0, s>>>(reinterpret_cast<float4*>(b.get()), p.stride, p.offset);
          break;
        default:
          return Status::error(N_("Element size must be 1, 2, 4, 8 or 16 bytes."));
      }
      break;
    }
  }
  CUDALAB_CUDA_TRY_LAUNCH();
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(s));
  return {};
}

}  // namespace cudalab::memory
