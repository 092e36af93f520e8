// The stencil lesson on the GPU: the scene, the blur ladder, Sobel, threshold and the display
// pixels as kernels; FrameRunner (one frame through the pipeline, every stage timed with events);
// the kernel measurements. Compiled with --fmad=false: the arithmetic is stencil_ops.cuh's,
// multiply-adds explicit, so the CPU gives the same bits.
//
// [SECTION] Kernels
// [SECTION] Launches
// [SECTION] FrameRunner
// [SECTION] Measurements
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/runtime_info.hpp"
#include "common/time_median.hpp"
#include "common/translatable.hpp"
#include "stencil/stencil.hpp"

namespace cudalab::stencil {

// ---------------------------------------------------------------------------------------------
// [SECTION] Kernels
// ---------------------------------------------------------------------------------------------

namespace kernels {

__global__ void scene(float4* out, int w, int h, int frame) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[size_t(y) * w + x] = scenePixel(x, y, w, h, frame);
}

__global__ void unpack(const std::uint32_t* in, float4* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[size_t(y) * w + x] = unpackRgba(in[size_t(y) * w + x]);
}

// Blur step 1, naive: one thread per output pixel, every one of the (2r + 1)^2 taps a load from
// global memory (edges clamped). Neighbours read nearly the same pixels; only the caches help.
__global__ void blurNaive(const float4* __restrict__ in, float4* __restrict__ out, int w, int h,
                          const float* __restrict__ k, int r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int n = 2 * r + 1;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int dy = -r; dy <= r; ++dy) {
    const float4* row = in + size_t(clampi(y + dy, 0, h - 1)) * w;
    for (int dx = -r; dx <= r; ++dx)
      acc = madd4(k[(dy + r) * n + dx + r], row[clampi(x + dx, 0, w - 1)], acc);
  }
  out[size_t(y) * w + x] = acc;
}

// Blur step 2, tiled: what was wrong with step 1 is that every tap is a global load. The block
// (tile x tile threads) first loads its tile and a halo of r pixels on every side into shared
// memory, once, then each thread takes its taps from there, in the same order as step 1.
__global__ void blurTiled(const float4* __restrict__ in, float4* __restrict__ out, int w, int h,
                          const float* __restrict__ k, int r) {
  extern __shared__ float4 tile[];
  const int t = blockDim.x, side = t + 2 * r;
  const int ox = blockIdx.x * t - r, oy = blockIdx.y * t - r;  // the halo's top-left pixel
  for (int i = threadIdx.y * t + threadIdx.x; i < side * side; i += t * t) {
    const int sx = i % side, sy = i / side;
    tile[i] = in[size_t(clampi(oy + sy, 0, h - 1)) * w + clampi(ox + sx, 0, w - 1)];
  }
  __syncthreads();
  const int x = blockIdx.x * t + threadIdx.x, y = blockIdx.y * t + threadIdx.y;
  if (x >= w || y >= h) return;
  const int n = 2 * r + 1;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int dy = -r; dy <= r; ++dy) {
    const float4* row = tile + (threadIdx.y + r + dy) * side + threadIdx.x + r;
    for (int dx = -r; dx <= r; ++dx)
      acc = madd4(k[(dy + r) * n + dx + r], row[dx], acc);
  }
  out[size_t(y) * w + x] = acc;
}

// Blur step 3, separable: steps 1 and 2 still do (2r + 1)^2 multiply-adds per pixel. The
// Gaussian is a row blur followed by a column blur: 2 (2r + 1) taps per pixel in two passes.
__global__ void blurRows(const float4* __restrict__ in, float4* __restrict__ tmp, int w, int h,
                         const float* __restrict__ k, int r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float4* row = in + size_t(y) * w;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int d = -r; d <= r; ++d)
    acc = madd4(k[d + r], row[clampi(x + d, 0, w - 1)], acc);
  tmp[size_t(y) * w + x] = acc;
}

__global__ void blurColumns(const float4* __restrict__ tmp, float4* __restrict__ out, int w, int h,
                            const float* __restrict__ k, int r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int d = -r; d <= r; ++d)
    acc = madd4(k[d + r], tmp[size_t(clampi(y + d, 0, h - 1)) * w + x], acc);
  out[size_t(y) * w + x] = acc;
}

// Blur step 4, separable in shared memory: what was wrong with step 3 is that each pass reads
// and writes the whole frame. The block loads its tile and halo once (as step 2), does the row
// pass for the tile's columns on all tile + 2r rows into a second shared array, synchronises,
// and does the column pass from there: one read and one write of the frame, 2 (2r + 1) taps,
// the same sums in the same order as step 3.
__global__ void blurSeparableShared(const float4* __restrict__ in, float4* __restrict__ out, int w,
                                    int h, const float* __restrict__ k, int r) {
  extern __shared__ float4 tile[];
  const int t = blockDim.x, side = t + 2 * r;
  float4* rowsDone = tile + side * side;  // side rows x t columns
  const int ox = blockIdx.x * t - r, oy = blockIdx.y * t - r;
  for (int i = threadIdx.y * t + threadIdx.x; i < side * side; i += t * t) {
    const int sx = i % side, sy = i / side;
    tile[i] = in[size_t(clampi(oy + sy, 0, h - 1)) * w + clampi(ox + sx, 0, w - 1)];
  }
  __syncthreads();
  for (int i = threadIdx.y * t + threadIdx.x; i < side * t; i += t * t) {
    const int cx = i % t, sy = i / t;
    const float4* row = tile + sy * side + cx + r;
    float4 acc = make_float4(0, 0, 0, 0);
    for (int d = -r; d <= r; ++d)
      acc = madd4(k[d + r], row[d], acc);
    rowsDone[sy * t + cx] = acc;
  }
  __syncthreads();
  const int x = blockIdx.x * t + threadIdx.x, y = blockIdx.y * t + threadIdx.y;
  if (x >= w || y >= h) return;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int d = -r; d <= r; ++d)
    acc = madd4(k[d + r], rowsDone[(threadIdx.y + r + d) * t + threadIdx.x], acc);
  out[size_t(y) * w + x] = acc;
}

__global__ void sobel(const float4* __restrict__ in, float* __restrict__ edges, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  edges[size_t(y) * w + x] =
      sobelAt([&](int xx, int yy) { return in[size_t(yy) * w + xx]; }, x, y, w, h);
}

__global__ void threshold(const float* __restrict__ edges, float* __restrict__ mask, size_t n,
                          float t) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) mask[i] = edges[i] >= t ? 1.0f : 0.0f;
}

__global__ void compose(const float4* __restrict__ in, const float4* __restrict__ blurred,
                        const float* __restrict__ edges, const float* __restrict__ mask, int view,
                        int split, std::uint32_t* __restrict__ out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const size_t i = size_t(y) * w + x;
  out[i] = composePixel(in[i], blurred[i], edges[i], mask[i], View(view), x, split);
}

}  // namespace kernels

// ---------------------------------------------------------------------------------------------
// [SECTION] Launches
// ---------------------------------------------------------------------------------------------

namespace {

dim3 gridFor(int w, int h, dim3 block) {
  return dim3((unsigned(w) + block.x - 1) / block.x, (unsigned(h) + block.y - 1) / block.y);
}

const dim3 kBlock2d(32, 8);

// The device buffers one frame size needs.
struct Buffers {
  int w = 0, h = 0;
  DeviceArray<float4> in, blurred, tmp;
  DeviceArray<float> edges, mask, k1, k2;
  int weightsRadius = -1;

  // On failure the buffers are left without a size (w = h = 0), never a size without buffers.
  Status allocate(int width, int height) {
    w = h = 0;
    const size_t n = size_t(width) * size_t(height);
    CUDALAB_TRY(in.allocate(n));
    CUDALAB_TRY(blurred.allocate(n));
    CUDALAB_TRY(tmp.allocate(n));
    CUDALAB_TRY(edges.allocate(n));
    CUDALAB_TRY(mask.allocate(n));
    CUDALAB_TRY(k1.allocate(2 * kMaxRadius + 1));
    CUDALAB_TRY(k2.allocate(size_t(2 * kMaxRadius + 1) * (2 * kMaxRadius + 1)));
    weightsRadius = -1;
    w = width;
    h = height;
    return {};
  }

  Status weights(int r, cudaStream_t s) {
    if (r == weightsRadius) return {};
    // In stream order after the kernels that read the old weights; a copy from pageable memory
    // has taken the bytes by the time it returns, so the vectors may go.
    const std::vector<float> hostK1 = gaussian1d(r), hostK2 = gaussian2d(r);
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(k1.get(), hostK1.data(), hostK1.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, s));
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(k2.get(), hostK2.data(), hostK2.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, s));
    weightsRadius = r;
    return {};
  }

  // The blur of `src` into `blurred` with the chosen variant (weights already there).
  Status blur(BlurId id, int r, int tile, const float4* src, cudaStream_t s) {
    switch (id) {
      case BlurId::Naive:
        kernels::blurNaive<<<gridFor(w, h, kBlock2d), kBlock2d, 0, s>>>(src, blurred.get(), w, h,
                                                                        k2.get(), r);
        break;
      case BlurId::Tiled: {
        const dim3 blk{unsigned(tile), unsigned(tile)};
        kernels::blurTiled<<<gridFor(w, h, blk), blk, size_t(tiledSharedBytes(tile, r)), s>>>(
            src, blurred.get(), w, h, k2.get(), r);
        break;
      }
      case BlurId::SeparableShared: {
        const dim3 blk{unsigned(tile), unsigned(tile)};
        kernels::
            blurSeparableShared<<<gridFor(w, h, blk), blk, size_t(sharedBytes(id, tile, r)), s>>>(
                src, blurred.get(), w, h, k1.get(), r);
        break;
      }
      case BlurId::Separable:
        kernels::blurRows<<<gridFor(w, h, kBlock2d), kBlock2d, 0, s>>>(src, tmp.get(), w, h,
                                                                       k1.get(), r);
        CUDALAB_CUDA_TRY_LAUNCH();
        kernels::blurColumns<<<gridFor(w, h, kBlock2d), kBlock2d, 0, s>>>(tmp.get(), blurred.get(),
                                                                          w, h, k1.get(), r);
        break;
    }
    CUDALAB_CUDA_TRY_LAUNCH();
    return {};
  }
};

Status querySharedLimit(long long& limit) {
  int dev = 0, v = 0;
  CUDALAB_CUDA_TRY(cudaGetDevice(&dev));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, dev));
  limit = v;
  return {};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] FrameRunner
// ---------------------------------------------------------------------------------------------

struct FrameRunner::Impl {
  Buffers b;
  DeviceArray<std::uint32_t> still;
  bool hasStill = false;
  Event ev[6];
  bool eventsReady = false, pending = false;
  FrameTimes times;
  const float4* lastBlurred = nullptr;
  long long sharedLimit = 0;

  Status readTimes(bool wait) {
    if (!pending) return {};
    if (wait) {
      CUDALAB_CUDA_TRY(cudaEventSynchronize(ev[5].get()));
    } else if (const cudaError_t q = cudaEventQuery(ev[5].get()); q == cudaErrorNotReady) {
      return {};  // still running: the times come with a later frame
    } else {
      CUDALAB_CUDA_TRY(q);
    }
    float ms[5];
    for (int i = 0; i < 5; ++i)
      CUDALAB_CUDA_TRY(cudaEventElapsedTime(&ms[i], ev[i].get(), ev[i + 1].get()));
    times = {ms[0], ms[1], ms[2], ms[3], ms[4]};
    pending = false;
    return {};
  }
};

FrameRunner::FrameRunner() : impl_(new Impl) {}
FrameRunner::~FrameRunner() {
  delete impl_;
}
int FrameRunner::width() const {
  return impl_->b.w;
}
int FrameRunner::height() const {
  return impl_->b.h;
}
long long FrameRunner::sharedLimit() const {
  return impl_->sharedLimit;
}
bool FrameRunner::hasStill() const {
  return impl_->hasStill;
}
const FrameTimes& FrameRunner::lastTimes() const {
  return impl_->times;
}

Status FrameRunner::prepare(int width, int height) {
  Impl& m = *impl_;
  if (!m.eventsReady) {
    for (Event& e : m.ev)
      CUDALAB_TRY(e.create());
    m.eventsReady = true;
  }
  CUDALAB_TRY(querySharedLimit(m.sharedLimit));
  std::size_t free = 0;
  CUDALAB_TRY(freeDeviceBytes(free));
  CUDALAB_TRY(validate(Pipeline{}, width, height, m.sharedLimit,
                       (long long)free + (long long)m.b.in.bytes() * 3));
  m.pending = false;
  m.hasStill = false;
  m.still.reset();
  m.lastBlurred = nullptr;
  return m.b.allocate(width, height);
}

Status FrameRunner::setStill(const std::vector<std::uint32_t>& rgba) {
  Impl& m = *impl_;
  if (rgba.empty()) {
    m.hasStill = false;
    m.still.reset();
    return {};
  }
  if (rgba.size() != size_t(m.b.w) * size_t(m.b.h))
    return Status::error(N_("The picture must be scaled to the frame size first."));
  CUDALAB_TRY(m.still.allocate(rgba.size()));
  CUDALAB_CUDA_TRY(cudaMemcpy(m.still.get(), rgba.data(), rgba.size() * 4, cudaMemcpyHostToDevice));
  m.hasStill = true;
  return {};
}

Status FrameRunner::run(const Pipeline& p, int frame, std::uint32_t* rgbaOut, cudaStream_t s) {
  Impl& m = *impl_;
  Buffers& b = m.b;
  if (b.w == 0) return Status::error(N_("The frame runner has no frame size yet."));
  CUDALAB_TRY(validate(p, b.w, b.h, m.sharedLimit));
  CUDALAB_TRY(m.readTimes(false));
  m.pending = false;  // until this frame's last event is recorded
  CUDALAB_TRY(b.weights(p.radius, s));
  const dim3 grid = gridFor(b.w, b.h, kBlock2d);
  const size_t n = size_t(b.w) * size_t(b.h);
  CUDALAB_CUDA_TRY(cudaEventRecord(m.ev[0].get(), s));
  if (m.hasStill)
    kernels::unpack<<<grid, kBlock2d, 0, s>>>(m.still.get(), b.in.get(), b.w, b.h);
  else
    kernels::scene<<<grid, kBlock2d, 0, s>>>(b.in.get(), b.w, b.h, frame);
  CUDALAB_CUDA_TRY_LAUNCH();
  CUDALAB_CUDA_TRY(cudaEventRecord(m.ev[1].get(), s));
  const float4* blurred = b.in.get();
  if (p.blur) {
    CUDALAB_TRY(b.blur(p.blurId, p.radius, p.tile, b.in.get(), s));
    blurred = b.blurred.get();
  }
  m.lastBlurred = blurred;
  CUDALAB_CUDA_TRY(cudaEventRecord(m.ev[2].get(), s));
  if (p.sobel) {
    kernels::sobel<<<grid, kBlock2d, 0, s>>>(blurred, b.edges.get(), b.w, b.h);
    CUDALAB_CUDA_TRY_LAUNCH();
  } else {
    CUDALAB_CUDA_TRY(cudaMemsetAsync(b.edges.get(), 0, n * sizeof(float), s));
  }
  CUDALAB_CUDA_TRY(cudaEventRecord(m.ev[3].get(), s));
  if (p.sobel && p.threshold) {
    kernels::threshold<<<unsigned((n + 255) / 256), 256, 0, s>>>(b.edges.get(), b.mask.get(), n,
                                                                 p.thresholdValue);
    CUDALAB_CUDA_TRY_LAUNCH();
  } else {
    CUDALAB_CUDA_TRY(cudaMemsetAsync(b.mask.get(), 0, n * sizeof(float), s));
  }
  CUDALAB_CUDA_TRY(cudaEventRecord(m.ev[4].get(), s));
  const int split = p.split < 0 ? b.w / 2 : std::clamp(p.split, 0, b.w);
  kernels::compose<<<grid, kBlock2d, 0, s>>>(b.in.get(), blurred, b.edges.get(), b.mask.get(),
                                             int(p.view), split, rgbaOut, b.w, b.h);
  CUDALAB_CUDA_TRY_LAUNCH();
  CUDALAB_CUDA_TRY(cudaEventRecord(m.ev[5].get(), s));
  m.pending = true;
  return {};
}

Status FrameRunner::waitTimes() {
  return impl_->readTimes(true);
}

Status FrameRunner::download(HostFrame& input, HostFrame& blurred, std::vector<float>& edges,
                             std::vector<float>& mask, cudaStream_t s) {
  Impl& m = *impl_;
  const size_t n = size_t(m.b.w) * size_t(m.b.h);
  for (HostFrame* f : {&input, &blurred}) {
    f->width = m.b.w;
    f->height = m.b.h;
    f->px.resize(n);
  }
  edges.resize(n);
  mask.resize(n);
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(input.px.data(), m.b.in.get(), n * sizeof(float4),
                                   cudaMemcpyDeviceToHost, s));
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(blurred.px.data(), m.lastBlurred ? m.lastBlurred : m.b.in.get(),
                                   n * sizeof(float4), cudaMemcpyDeviceToHost, s));
  CUDALAB_CUDA_TRY(
      cudaMemcpyAsync(edges.data(), m.b.edges.get(), n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDALAB_CUDA_TRY(
      cudaMemcpyAsync(mask.data(), m.b.mask.get(), n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(s));
  return {};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Measurements
// ---------------------------------------------------------------------------------------------

namespace {

// A variant at radius r on a small odd-sized frame (`b`: 97 x 61 buffers), against the CPU, bit
// for bit.
constexpr int kCheckW = 97, kCheckH = 61;
Result<bool> checkSmall(Buffers& b, BlurId id, int r, int tile, cudaStream_t s) {
  constexpr int kW = kCheckW, kH = kCheckH;
  CUDALAB_TRY(b.weights(r, s));
  const HostFrame in = sceneFrame(kW, kH, r);
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(b.in.get(), in.px.data(), in.px.size() * sizeof(float4),
                                   cudaMemcpyHostToDevice, s));
  CUDALAB_CUDA_TRY(cudaMemsetAsync(b.blurred.get(), 0xFF, in.px.size() * sizeof(float4), s));
  CUDALAB_TRY(b.blur(id, r, tile, b.in.get(), s));
  std::vector<float4> got(in.px.size());
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(got.data(), b.blurred.get(), got.size() * sizeof(float4),
                                   cudaMemcpyDeviceToHost, s));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(s));
  const HostFrame want = cpuBlur(in, id, r, 0);
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want.px[i], sizeof(float4)) != 0) return false;
  return true;
}

}  // namespace

Result<KernelReport> measureKernels(int width, int height, const std::vector<int>& radii, int tile,
                                    const std::atomic<bool>* cancel, const Progress& progress) {
  long long limit = 0;
  CUDALAB_TRY(querySharedLimit(limit));
  std::size_t free = 0;
  CUDALAB_TRY(freeDeviceBytes(free));
  Pipeline p;
  p.tile = tile;
  CUDALAB_TRY(validate(p, width, height, limit, (long long)free));
  KernelReport rep;
  rep.width = width;
  rep.height = height;
  rep.tile = tile;
  rep.device = currentDeviceName();
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  const cudaStream_t s = stream.get();
  Buffers b, small;
  DeviceArray<std::uint32_t> rgba;
  StreamDrain drain(s);
  CUDALAB_TRY(b.allocate(width, height));
  CUDALAB_TRY(small.allocate(kCheckW, kCheckH));
  const size_t n = size_t(width) * size_t(height);
  CUDALAB_TRY(rgba.allocate(n));
  const dim3 grid = gridFor(width, height, kBlock2d);
  auto launched = []() -> Status {
    CUDALAB_CUDA_TRY_LAUNCH();
    return {};
  };
  // The frame, the copy ceiling and the stages that do not depend on the radius.
  Result<double> t = timeMedian(s, 2, 10, [&] {
    kernels::scene<<<grid, kBlock2d, 0, s>>>(b.in.get(), width, height, 0);
    return launched();
  });
  if (!t) return t.status();
  rep.sceneMs = *t;
  t = timeMedian(s, 2, 10, [&]() -> Status {
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(b.tmp.get(), b.in.get(), n * sizeof(float4), cudaMemcpyDeviceToDevice, s));
    return {};
  });
  if (!t) return t.status();
  rep.copyMs = *t;
  rep.copyGBps = *t > 0 ? 2.0 * double(n) * sizeof(float4) / (*t * 1e6) : 0;
  t = timeMedian(s, 2, 10, [&] {
    kernels::sobel<<<grid, kBlock2d, 0, s>>>(b.in.get(), b.edges.get(), width, height);
    return launched();
  });
  if (!t) return t.status();
  rep.sobelMs = *t;
  t = timeMedian(s, 2, 10, [&] {
    kernels::threshold<<<unsigned((n + 255) / 256), 256, 0, s>>>(b.edges.get(), b.mask.get(), n,
                                                                 0.35f);
    return launched();
  });
  if (!t) return t.status();
  rep.thresholdMs = *t;
  t = timeMedian(s, 2, 10, [&] {
    kernels::compose<<<grid, kBlock2d, 0, s>>>(b.in.get(), b.in.get(), b.edges.get(), b.mask.get(),
                                               int(View::Mask), width / 2, rgba.get(), width,
                                               height);
    return launched();
  });
  if (!t) return t.status();
  rep.composeMs = *t;

  size_t done = 0;
  const size_t total = radii.size() * blurs().size();
  for (int r : radii) {
    CUDALAB_TRY(b.weights(r, s));
    for (const BlurInfo& info : blurs()) {
      if (cancel && cancel->load()) return Status::error(N_("Measurement cancelled."));
      if (progress)
        progress(float(done++) / float(total),
                 Phrase{N_("%s, radius %s"), {info.key, std::to_string(r)}}.packed());
      KernelPoint pt{info.id, r, usesTile(info.id) ? tile : 0};
      Pipeline q;
      q.blurId = info.id;
      q.radius = r;
      q.tile = tile;
      if (!validate(q, width, height, limit)) continue;  // a tile + halo too large: refused
      Result<bool> ok = checkSmall(small, info.id, r, tile, s);
      if (!ok) return ok.status();
      pt.ok = *ok;
      t = timeMedian(s, 2, 10, [&] { return b.blur(info.id, r, tile, b.in.get(), s); });
      if (!t) return t.status();
      pt.ms = *t;
      pt.gpixPerS = *t > 0 ? double(n) / (*t * 1e6) : 0;
      pt.gbps = *t > 0 ? 2.0 * double(n) * sizeof(float4) / (*t * 1e6) : 0;
      rep.points.push_back(pt);
    }
  }
  if (progress) progress(1, N_("done"));
  return rep;
}

}  // namespace cudalab::stencil
