// The stencil lesson on the CPU: tables, weights, validation, the tile model, the synthetic scene
// and the filters, each computing exactly what its kernel computes (stencil_ops.cuh; this file is
// compiled without floating-point contraction).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "common/format.hpp"
#include "common/host_parallel.hpp"
#include "common/translatable.hpp"
#include "stencil/stencil.hpp"
#include "common/table.hpp"

namespace cudalab::stencil {

namespace {

const BlurInfo kBlurs[] = {
    {BlurId::Naive, "naive", N_("naive 2D: every tap from global memory"), 5,
     N_("Each thread computes one output pixel and reads all (2r + 1)^2 input pixels around it "
        "from global memory. Neighbouring threads read almost the same pixels, so the caches help, "
        "but every tap is still a load instruction: at radius 7, 225 loads per pixel.")},
    {BlurId::Tiled, "tiled", N_("shared-memory tile with a halo"), 0,
     N_("The naive kernel's blocks each read their neighbourhood many times over. A block now "
        "loads its tile plus a halo of r pixels on every side into shared memory once, "
        "synchronises, and every thread reads its (2r + 1)^2 taps from there. Global loads per "
        "output pixel fall to (tile + 2r)^2 / tile^2, but the taps are still (2r + 1)^2 "
        "multiply-adds.")},
    {BlurId::Separable, "separable", N_("separable: a row pass and a column pass"), 2,
     N_("A Gaussian is a product of a horizontal and a vertical one, so the 2D blur is two 1D "
        "blurs: each pixel takes 2r + 1 taps along its row into a temporary frame, then 2r + 1 "
        "along its column. 2 (2r + 1) taps instead of (2r + 1)^2: at radius 7, 30 instead of "
        "225.")},
    {BlurId::SeparableShared, "separable-shared", N_("separable in shared memory: one kernel"), 3,
     N_("The two separable passes each read and write the whole frame, so even with few taps they "
        "move twice the bytes of a copy. Here one block loads its tile and halo into shared memory "
        "once, does the row pass into a second shared array (the tile's rows plus the halo rows), "
        "synchronises, and does the column pass from there: the frame is read once and written "
        "once, with 2 (2r + 1) taps per pixel. The same sums in the same order as the two passes. "
        "The price: the row pass also runs on the 2r halo rows, (tile + 2r) / tile times the rows "
        "(with tile 16 at radius 15 almost three times), so at large radii the two plain passes "
        "win again.")},
};

// Stops a CPU filter between rows when the learner cancels (a one-core blur of a 4K frame at
// radius 15 takes minutes).
bool stop(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

}  // namespace

const KeyedTable<BlurInfo> kBlurTable{kBlurs};

std::vector<float> gaussian1d(int radius) {
  const double sigma = std::max(0.5, radius / 2.0);
  std::vector<double> w(size_t(2 * radius + 1));
  double sum = 0;
  for (int i = -radius; i <= radius; ++i)
    sum += w[size_t(i + radius)] = std::exp(-double(i) * i / (2 * sigma * sigma));
  std::vector<float> out;
  for (double v : w)
    out.push_back(float(v / sum));
  return out;
}

std::vector<float> gaussian2d(int radius) {
  const std::vector<float> w = gaussian1d(radius);
  std::vector<float> out;
  for (float a : w)
    for (float b : w)
      out.push_back(a * b);
  return out;
}

bool usesTile(BlurId id) {
  return id == BlurId::Tiled || id == BlurId::SeparableShared;
}

long long tiledSharedBytes(int tile, int radius) {
  const long long side = tile + 2LL * radius;
  return side * side * 16;
}

long long sharedBytes(BlurId id, int tile, int radius) {
  if (id == BlurId::Tiled) return tiledSharedBytes(tile, radius);
  if (id == BlurId::SeparableShared)
    return tiledSharedBytes(tile, radius) + (tile + 2LL * radius) * tile * 16;
  return 0;
}

Status validate(const Pipeline& p, int width, int height, long long sharedLimit,
                long long freeBytes) {
  if (width < 1 || height < 1 || width > 8192 || height > 8192)
    return Status::errorf(N_("Frames are 1 to 8,192 pixels wide and high; %s x %s is not."),
                          {std::to_string(width), std::to_string(height)});
  if (Status s = checkRange(kRadius, p.radius); !s) return s;
  if (std::find(std::begin(kTiles), std::end(kTiles), p.tile) == std::end(kTiles))
    return Status::error(
        N_("The tile is 8, 16 or 32 pixels square (one thread per output pixel, at most 1,024 "
           "threads per block)."));
  if (p.blur && usesTile(p.blurId)) {
    const long long need = sharedBytes(p.blurId, p.tile, p.radius);
    if (sharedLimit > 0 && need > sharedLimit) {
      const int side = p.tile + 2 * p.radius;
      const std::string t = std::to_string(p.tile), r = std::to_string(p.radius),
                        sd = std::to_string(side);
      // The separable kernel also keeps the row pass's results: one sentence each, so that
      // each translates whole.
      if (p.blurId == BlurId::SeparableShared)
        return Status::errorf(
            N_("A %s x %s tile with a halo of %s pixels is %s x %s pixels of 16 bytes (RGBA "
               "floats), plus the row pass's %s x %s results: %s bytes of shared memory, and a "
               "block may have %s. Choose a smaller tile or radius; the halo grows with the "
               "radius on every side."),
            {t, t, r, sd, sd, sd, t, thousands(need), thousands(sharedLimit)});
      return Status::errorf(
          N_("A %s x %s tile with a halo of %s pixels is %s x %s pixels of 16 bytes (RGBA "
             "floats): %s bytes of shared memory, and a block may have %s. Choose a smaller tile "
             "or radius; the halo grows with the radius on every side."),
          {t, t, r, sd, sd, thousands(need), thousands(sharedLimit)});
    }
  }
  if (!(p.thresholdValue >= 0 && p.thresholdValue <= 4))
    return Status::error(
        N_("The edge threshold is between 0 and 4 (the largest Sobel magnitude of grey levels in "
           "[0, 1] is about 5.7)."));
  // Input, blurred, temporary: float4; edges and mask: float.
  const long long bytes = (long long)width * height * (3 * 16 + 2 * 4);
  if (freeBytes >= 0 && bytes > freeBytes)
    return Status::errorf(N_("The frame's buffers need %s and only %s of device memory is free."),
                          {mib(double(bytes)), mib(double(freeBytes))});
  return {};
}

TileModel tileModel(int tile, int radius) {
  TileModel m;
  m.tile = tile;
  m.radius = radius;
  const long long side = tile + 2LL * radius;
  m.loadsPerBlock = side * side;
  m.outputsPerBlock = (long long)tile * tile;
  m.haloOverhead = double(m.loadsPerBlock) / double(m.outputsPerBlock) - 1;
  m.naiveReadsPerPixel = double(2 * radius + 1) * (2 * radius + 1);
  m.tiledReadsPerPixel = double(m.loadsPerBlock) / double(m.outputsPerBlock);
  m.separableReadsPerPixel = 2.0 * (2 * radius + 1);
  m.sharedBytes = tiledSharedBytes(tile, radius);
  return m;
}

int loadsOfPixel(int x, int y, int tile, int radius) {
  // Blocks whose tile plus halo covers (x, y): along each axis, the tiles within r of x.
  auto along = [&](int v) {
    const int first = (v - radius) >= 0 ? (v - radius) / tile : -((radius - v + tile - 1) / tile);
    const int last = (v + radius) / tile;
    return last - first + 1;
  };
  return along(x) * along(y);
}

HostFrame sceneFrame(int width, int height, int frame, int threads) {
  HostFrame f;
  f.width = width;
  f.height = height;
  f.px.resize(size_t(width) * size_t(height));
  parallelFor(height, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < width; ++x)
        f.px[size_t(y) * size_t(width) + size_t(x)] = scenePixel(x, y, width, height, frame);
  });
  return f;
}

HostFrame fromRgba8(const std::uint32_t* rgba, int srcW, int srcH, int width, int height) {
  HostFrame f;
  f.width = width;
  f.height = height;
  f.px.resize(size_t(width) * size_t(height));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const int sx = int((long long)x * srcW / width), sy = int((long long)y * srcH / height);
      f.px[size_t(y) * size_t(width) + size_t(x)] =
          unpackRgba(rgba[size_t(sy) * size_t(srcW) + size_t(sx)]);
    }
  return f;
}

HostFrame cpuBlur(const HostFrame& in, BlurId id, int radius, int threads,
                  const std::atomic<bool>* cancel) {
  const int w = in.width, h = in.height, r = radius, n = 2 * r + 1;
  HostFrame out;
  out.width = w;
  out.height = h;
  out.px.resize(in.px.size());
  if (id == BlurId::Separable || id == BlurId::SeparableShared) {
    const std::vector<float> k = gaussian1d(r);
    std::vector<float4> tmp(in.px.size());
    parallelFor(h, threads, [&](int y0, int y1) {
      for (int y = y0; y < y1 && !stop(cancel); ++y)
        for (int x = 0; x < w; ++x) {
          float4 acc = make_float4(0, 0, 0, 0);
          for (int d = -r; d <= r; ++d)
            acc = madd4(k[size_t(d + r)], in.at(clampi(x + d, 0, w - 1), y), acc);
          tmp[size_t(y) * size_t(w) + size_t(x)] = acc;
        }
    });
    parallelFor(h, threads, [&](int y0, int y1) {
      for (int y = y0; y < y1 && !stop(cancel); ++y)
        for (int x = 0; x < w; ++x) {
          float4 acc = make_float4(0, 0, 0, 0);
          for (int d = -r; d <= r; ++d)
            acc = madd4(k[size_t(d + r)],
                        tmp[size_t(clampi(y + d, 0, h - 1)) * size_t(w) + size_t(x)], acc);
          out.px[size_t(y) * size_t(w) + size_t(x)] = acc;
        }
    });
    return out;
  }
  // Naive and tiled compute the same sums in the same order: rows of taps, top to bottom.
  const std::vector<float> k = gaussian2d(r);
  parallelFor(h, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1 && !stop(cancel); ++y)
      for (int x = 0; x < w; ++x) {
        float4 acc = make_float4(0, 0, 0, 0);
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx)
            acc = madd4(k[size_t((dy + r) * n + dx + r)],
                        in.at(clampi(x + dx, 0, w - 1), clampi(y + dy, 0, h - 1)), acc);
        out.px[size_t(y) * size_t(w) + size_t(x)] = acc;
      }
  });
  return out;
}

std::vector<float> cpuSobel(const HostFrame& in, int threads, const std::atomic<bool>* cancel) {
  std::vector<float> e(in.px.size());
  parallelFor(in.height, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1 && !stop(cancel); ++y)
      for (int x = 0; x < in.width; ++x)
        e[size_t(y) * size_t(in.width) + size_t(x)] =
            sobelAt([&](int xx, int yy) { return in.at(xx, yy); }, x, y, in.width, in.height);
  });
  return e;
}

std::vector<float> cpuThreshold(const std::vector<float>& edges, float t) {
  std::vector<float> m(edges.size());
  for (size_t i = 0; i < edges.size(); ++i)
    m[i] = edges[i] >= t ? 1.0f : 0.0f;
  return m;
}

CpuFrame cpuPipeline(const HostFrame& in, const Pipeline& p, int threads,
                     const std::atomic<bool>* cancel) {
  CpuFrame f;
  auto t0 = std::chrono::steady_clock::now();
  const HostFrame blurred = p.blur ? cpuBlur(in, p.blurId, p.radius, threads, cancel) : in;
  f.blurMs = p.blur ? msSince(t0) : 0;
  t0 = std::chrono::steady_clock::now();
  const std::vector<float> edges =
      p.sobel ? cpuSobel(blurred, threads, cancel) : std::vector<float>(in.px.size(), 0.0f);
  f.sobelMs = p.sobel ? msSince(t0) : 0;
  t0 = std::chrono::steady_clock::now();
  const std::vector<float> mask = p.threshold && p.sobel ? cpuThreshold(edges, p.thresholdValue)
                                                         : std::vector<float>(in.px.size(), 0.0f);
  f.thresholdMs = p.threshold && p.sobel ? msSince(t0) : 0;
  t0 = std::chrono::steady_clock::now();
  const int split = p.split < 0 ? in.width / 2 : p.split;
  f.rgba.resize(in.px.size());
  parallelFor(in.height, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < in.width; ++x) {
        const size_t i = size_t(y) * size_t(in.width) + size_t(x);
        f.rgba[i] = composePixel(in.px[i], blurred.px[i], edges[i], mask[i], p.view, x, split);
      }
  });
  f.composeMs = msSince(t0);
  return f;
}

std::vector<int> defaultRadii() {
  std::vector<int> r;
  for (int i = 1; i <= kMaxRadius; ++i)
    r.push_back(i);
  return r;
}

}  // namespace cudalab::stencil
