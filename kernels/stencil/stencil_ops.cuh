// The stencil lesson's arithmetic per pixel, written once for the GPU kernels and the CPU
// reference: every multiply-add is an explicit fmaf and every other operation is rounded once in
// float32 (this file's users are compiled without contraction: --fmad=false, -ffp-contract=off),
// so a kernel and the CPU give the same bits and the tests compare them exactly. (scenePixel and
// sobelAt also hold a + b * c forms: they match only because every file that compiles them is
// built without contraction; a new user of this header must be too.)
#pragma once

#include <cmath>
#include <cstdint>
#include <vector_functions.h>
#include <vector_types.h>

#if defined(__CUDACC__)
#define STENCIL_HD __host__ __device__
#else
#define STENCIL_HD
#endif

namespace cudalab::stencil {

STENCIL_HD inline int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

STENCIL_HD inline float4 madd4(float w, float4 p, float4 acc) {
  return make_float4(fmaf(w, p.x, acc.x), fmaf(w, p.y, acc.y), fmaf(w, p.z, acc.z),
                     fmaf(w, p.w, acc.w));
}

// Grey level of a colour (Rec. 709 weights).
STENCIL_HD inline float luminance(float4 p) {
  return fmaf(0.2126f, p.x, fmaf(0.7152f, p.y, 0.0722f * p.z));
}

// A hash of a pixel and a frame: the sensor noise, the same on the GPU and the CPU.
STENCIL_HD inline std::uint32_t hash3(std::uint32_t x, std::uint32_t y, std::uint32_t f) {
  std::uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ f * 0xcb1ab31fu;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  return h;
}

// The synthetic camera frame: sky, a road narrowing to the horizon with dashed lane markings that
// move towards the camera, two cars, and sensor noise; deterministic from the frame number.
STENCIL_HD inline float4 scenePixel(int x, int y, int w, int h, int frame) {
  const float u = (float(x) + 0.5f) / float(w), v = (float(y) + 0.5f) / float(h);
  const float horizon = 0.42f;
  float4 c;
  if (v < horizon) {  // sky: lighter towards the horizon
    const float t = v / horizon;
    c = make_float4(fmaf(0.35f, t, 0.35f), fmaf(0.3f, t, 0.55f), fmaf(0.1f, t, 0.85f), 1.0f);
  } else {
    const float depth = (v - horizon) / (1.0f - horizon);  // 0 at the horizon, 1 at the bottom
    const float half = fmaf(0.48f, depth, 0.02f);          // the road's half width
    const float d = u - 0.5f;
    c = make_float4(0.25f, 0.45f, 0.2f, 1.0f);  // grass
    if (d > -half && d < half) {
      c = make_float4(0.32f, 0.32f, 0.34f, 1.0f);  // asphalt
      // Lane markings at a third and two thirds of the width, dashed along 1 / depth.
      const float lane = fabsf(fabsf(d / half) - 0.333f);
      const float along = 4.0f / fmaxf(depth, 0.02f) + 0.15f * float(frame);
      const bool dash = along - floorf(along) < 0.5f;
      if (lane < 0.025f && dash) c = make_float4(0.95f, 0.95f, 0.9f, 1.0f);
      if (fabsf(fabsf(d / half) - 0.97f) < 0.02f) c = make_float4(0.95f, 0.85f, 0.2f, 1.0f);
      // Two cars: boxes that move with the frame number.
      for (int k = 0; k < 2; ++k) {
        const float phase = float((frame * (k + 2) + 97 * k) % 400) / 400.0f;
        const float cv = fmaf(0.5f, phase, horizon + 0.1f);  // screen row of the car's bottom
        const float cd = (cv - horizon) / (1.0f - horizon);
        const float cw = fmaf(0.12f, cd, 0.01f);
        const float cx = 0.5f + (k == 0 ? -0.17f : 0.17f) * fmaf(0.96f, cd, 0.04f);
        if (fabsf(u - cx) < cw && v < cv && v > cv - cw * 1.2f)
          c = k == 0 ? make_float4(0.85f, 0.15f, 0.1f, 1.0f) : make_float4(0.1f, 0.3f, 0.85f, 1.0f);
      }
    }
  }
  // Sensor noise, up to 3% either way.
  const float n = float(hash3(std::uint32_t(x), std::uint32_t(y), std::uint32_t(frame)) >> 8) *
                      (1.0f / 16777216.0f) -
                  0.5f;
  const float e = 0.06f * n;
  return make_float4(c.x + e, c.y + e, c.z + e, 1.0f);
}

// An 8-bit RGBA pixel (as the display and image files hold them) as floats in [0, 1].
STENCIL_HD inline float4 unpackRgba(std::uint32_t p) {
  return make_float4(float(p & 255u) / 255.0f, float((p >> 8) & 255u) / 255.0f,
                     float((p >> 16) & 255u) / 255.0f, float(p >> 24) / 255.0f);
}

STENCIL_HD inline std::uint32_t channel8(float v) {
  return std::uint32_t(fmaf(fminf(fmaxf(v, 0.0f), 1.0f), 255.0f, 0.5f));
}
STENCIL_HD inline std::uint32_t packRgba(float4 p) {
  return channel8(p.x) | channel8(p.y) << 8 | channel8(p.z) << 16 | 255u << 24;
}

// Sobel edge magnitude of the grey levels around (x, y); `get(x, y)` reads a pixel, edges
// clamped.
template <class Get>
STENCIL_HD inline float sobelAt(Get get, int x, int y, int w, int h) {
  float l[3][3];
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      l[dy + 1][dx + 1] = luminance(get(clampi(x + dx, 0, w - 1), clampi(y + dy, 0, h - 1)));
  const float gx = (l[0][2] - l[0][0]) + 2.0f * (l[1][2] - l[1][0]) + (l[2][2] - l[2][0]);
  const float gy = (l[2][0] - l[0][0]) + 2.0f * (l[2][1] - l[0][1]) + (l[2][2] - l[0][2]);
  return sqrtf(fmaf(gx, gx, gy * gy));
}

// What the display shows of each stage.
enum class View : int { Input = 0, Blurred = 1, Edges = 2, Mask = 3 };

// One display pixel: the input left of `split` (a column), the chosen stage right of it.
STENCIL_HD inline std::uint32_t composePixel(float4 input, float4 blurred, float edge, float mask,
                                             View view, int x, int split) {
  if (x < split) return packRgba(input);
  switch (view) {
    case View::Input:
      return packRgba(input);
    case View::Blurred:
      return packRgba(blurred);
    case View::Edges: {
      const float e = fminf(edge, 1.0f);
      return packRgba(make_float4(e, e, e, 1.0f));
    }
    case View::Mask:
      // The mask over the darkened input, in the warning colour of a driver-assistance display.
      return mask > 0.5f ? packRgba(make_float4(1.0f, 0.25f, 0.1f, 1.0f))
                         : packRgba(make_float4(0.4f * blurred.x, 0.4f * blurred.y,
                                                0.4f * blurred.z, 1.0f));
  }
  return 0;
}

}  // namespace cudalab::stencil
