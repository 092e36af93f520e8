// The tensor-cores lesson's precision panel: mixed-precision dot products emulated on the CPU.
#include <algorithm>
#include <cmath>
#include <random>

#include "common/translatable.hpp"
#include "models/floats.hpp"
#include "tensor_cores/tensor_cores.hpp"

namespace cudalab::tensor_cores {

namespace {

using floats::Format;

constexpr int fmt(Format f) {
  return static_cast<int>(f);
}

// clang-format off
constexpr MixedInfo kMixed[] = {
    {Mixed::Float32, "f32", N_("float32 inputs, FMA (SGEMM)"), fmt(Format::Float32), false, 4,
     N_("No tensor core: float32 inputs, each product added with one fused multiply-add, as "
        "SGEMM does on the CUDA cores. The reference for the others.")},
    {Mixed::Tf32, "tf32", N_("TF32 inputs, float32 sums"), fmt(Format::TF32), false, 7,
     N_("float32 inputs rounded to TF32's 10 mantissa bits, products exact, sums in float32: "
        "what cuBLAS TF32 does to a float32 program's data.")},
    {Mixed::Half, "fp16", N_("FP16 inputs, float32 sums"), fmt(Format::Half), false, 2,
     N_("Inputs rounded to FP16 (10 mantissa bits, range to 65504), products exact, sums in "
        "float32: the tensor cores' usual FP16 work.")},
    {Mixed::BFloat16, "bf16", N_("BF16 inputs, float32 sums"), fmt(Format::BFloat16), false, 1,
     N_("Inputs rounded to BF16 (7 mantissa bits, float32's range), products exact, sums in "
        "float32: the format of most training today.")},
    {Mixed::Fp8E4M3, "e4m3", N_("FP8 E4M3 inputs, float32 sums"), fmt(Format::FP8E4M3), false, 3,
     N_("Inputs scaled by 2^8 and rounded to FP8 E4M3 (3 mantissa bits, up to 448), products "
        "exact, sums in float32, scaled back: Hopper's fastest tensor-core format.")},
    {Mixed::HalfSums, "fp16_sums", N_("FP16 inputs, FP16 sums"), fmt(Format::Half), true, 5,
     N_("The same FP16 inputs with the sum itself kept in FP16: every addition rounds to 11 "
        "significant bits, and once the sum is large each small product loses most of its "
        "digits. Why the tensor cores accumulate in float32.")},
};
// clang-format on

}  // namespace

const KeyedTable<MixedInfo> kMixedTable{kMixed};

std::span<const int> defaultPrecisionKs() {
  static constexpr int kKs[] = {16, 64, 256, 1024, 4096, 16384};
  return kKs;
}

std::vector<MixedCurve> productErrors(std::span<const int> Ks, int samples, std::uint64_t seed) {
  std::vector<MixedCurve> out;
  for (const MixedInfo& m : kMixed)
    out.push_back({m.id, {}});
  std::mt19937_64 rng{seed};
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int n = std::max(1, samples);
  for (int K : Ks) {
    std::vector<std::vector<double>> errors(out.size());
    std::vector<float> a(static_cast<std::size_t>(std::max(K, 0))), b(a.size());
    for (int s = 0; s < n; ++s) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = u(rng);
        b[i] = u(rng);
      }
      // The exact dot product: float32 products are exact in double, and K of them add with
      // at most K roundings of long double's 64 bits.
      long double exact = 0, absSum = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const double p = double(a[i]) * double(b[i]);
        exact += p;
        absSum += std::fabs(p);
      }
      for (std::size_t m = 0; m < out.size(); ++m) {
        const MixedInfo& info = kMixed[m];
        const auto f = static_cast<Format>(info.inputFormat);
        double sum = 0;
        if (info.id == Mixed::Float32) {
          float acc = 0;
          for (std::size_t i = 0; i < a.size(); ++i)
            acc = std::fma(a[i], b[i], acc);
          sum = acc;
        } else {
          const double scale = info.id == Mixed::Fp8E4M3 ? 256.0 : 1.0;
          float acc = 0;
          double half = 0;
          for (std::size_t i = 0; i < a.size(); ++i) {
            // The rounded inputs' product is exact in float32 (at most 22 significant bits).
            const double p = floats::roundTo(f, a[i] * scale) * floats::roundTo(f, b[i] * scale) /
                             (scale * scale);
            if (info.halfSums)
              half = floats::roundTo(Format::Half, static_cast<long double>(half) + p);
            else
              acc += static_cast<float>(p);
          }
          sum = info.halfSums ? half : acc;
        }
        const long double err = std::fabs(static_cast<long double>(sum) - exact);
        errors[m].push_back(absSum > 0 ? static_cast<double>(err / absSum) : 0.0);
      }
    }
    for (std::size_t m = 0; m < out.size(); ++m) {
      std::vector<double>& e = errors[m];
      std::sort(e.begin(), e.end());
      out[m].points.push_back({K, e[e.size() / 2], e.back()});
    }
  }
  return out;
}

}  // namespace cudalab::tensor_cores
