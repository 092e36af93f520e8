// The tensor-cores lesson's CPU side: the step table, the m16n8k16 fragment layout against the
// PTX ISA's figures, the shared-memory banks with and without the swizzle, padding, the inputs
// every format holds, the error bound, refusals, and the comparison catching a wrong element.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "models/floats.hpp"
#include "tensor_cores/tensor_cores.hpp"
#include "tensor_cores/tensor_cores_fp8.hpp"

namespace cudalab::tensor_cores {
namespace {

TEST(TensorCoresTable, EveryStepOnceWithItsNeeds) {
  std::set<std::string> keys;
  for (const StepInfo& s : steps()) {
    EXPECT_TRUE(keys.insert(s.key).second) << s.key;
    EXPECT_EQ(stepByKey(s.key), s.id);
    EXPECT_EQ(&stepInfo(s.id), &s);
    EXPECT_NE(std::string(s.help), "");
    if (handWritten(s)) {
      EXPECT_EQ(s.tileM % 16, 0) << s.key;
      EXPECT_EQ(s.tileN % 16, 0) << s.key;
      EXPECT_EQ(s.tileK % 16, 0) << s.key;
      EXPECT_GT(s.threads, 0) << s.key;
      EXPECT_GE(s.stages, 1) << s.key;
      // The host pads to 128 x 256 x 64: every tile must divide that.
      EXPECT_EQ(128 % s.tileM, 0) << s.key;
      EXPECT_EQ(256 % s.tileN, 0) << s.key;
      EXPECT_EQ(64 % s.tileK, 0) << s.key;
    }
  }
  EXPECT_EQ(allStepIds().size(), steps().size());
  EXPECT_EQ(libraryFor(InputFormat::BFloat16), StepId::CublasBf16);
  EXPECT_EQ(libraryFor(InputFormat::Half), StepId::CublasHalf);
  // WMMA in FP16 runs from Volta, in BF16 from Ampere; mma.sync m16n8k16 from Ampere.
  EXPECT_EQ(minArch(stepInfo(StepId::WmmaGlobal), InputFormat::Half), 70);
  EXPECT_EQ(minArch(stepInfo(StepId::WmmaGlobal), InputFormat::BFloat16), 80);
  EXPECT_EQ(minArch(stepInfo(StepId::MmaLdmatrix), InputFormat::Half), 80);
  EXPECT_EQ(inputsOf(stepInfo(StepId::CublasTf32), InputFormat::Half), Inputs::Float32);
  // wgmma: code for sm_90a, whatever the format.
  EXPECT_EQ(archNeeded(stepInfo(StepId::WgmmaTma), InputFormat::Half), "sm_90a");
  EXPECT_EQ(archNeeded(stepInfo(StepId::MmaSwizzled), InputFormat::BFloat16), "sm_80");
  EXPECT_EQ(archNeeded(stepInfo(StepId::CublasSgemm), InputFormat::BFloat16), "-");
  EXPECT_EQ(inputsOf(stepInfo(StepId::MmaPipelined), InputFormat::Half), Inputs::Half);
  // FP8 products: cuBLASLt from Ada (8.9) on, one byte per input.
  EXPECT_EQ(archNeeded(stepInfo(StepId::CublasLtFp8), InputFormat::BFloat16), "sm_89");
  EXPECT_EQ(inputsOf(stepInfo(StepId::CublasLtFp8), InputFormat::Half), Inputs::Fp8E4m3);
  EXPECT_EQ(inputBytes(Inputs::Fp8E4m3), 1);
  EXPECT_EQ(inputBytes(Inputs::Float32), 4);
  EXPECT_EQ(inputBytes(Inputs::BFloat16), 2);
}

// The FP8 row's inputs, rounded as E4M3 rounds them (3 mantissa bits, to nearest even).
TEST(TensorCoresInputs, Fp8RoundsToThreeMantissaBits) {
  const std::vector<float> in = {0.3f, 1.0f / 256, 255.0f / 256, -0.5625f, 0.59375f, 0.0f},
                           out = roundedToFp8(in);
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(out[0], 0.3125f);     // 1.2 x 2^-2 -> 1.25 x 2^-2
  EXPECT_EQ(out[1], 1.0f / 256);  // 2^-8: a subnormal of E4M3, exact
  EXPECT_EQ(out[2], 1.0f);        // 0.996 -> 1
  EXPECT_EQ(out[3], -0.5625f);    // 1.125 x 2^-1: exact
  EXPECT_EQ(out[4], 0.625f);      // 1.1875 x 2^-1, halfway: to the even 1.25
  EXPECT_EQ(out[5], 0.0f);
  // The bound leaves room for the tensor cores' narrower FP8 accumulation, and grows with K.
  EXPECT_GT(errorBoundFp8(64), errorBound(64));
  EXPECT_GT(errorBoundFp8(8192), errorBoundFp8(64));
}

// The PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type": groupID = lane >> 2,
// threadID_in_group = lane % 4. A: a0..a7, row groupID (+8 for a2, a3, a6, a7), column
// 2 threadID_in_group + (i & 1) (+8 for a4..a7). B: b0..b3, row 2 threadID_in_group + (i & 1)
// (+8 for b2, b3), column groupID. C: c0..c3, row groupID (+8 for c2, c3), column
// 2 threadID_in_group + (i & 1).
TEST(TensorCoresFragments, LanesHoldWhatThePtxIsaSays) {
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane % 4;
    const std::vector<Element> a = laneElements(Operand::A, lane);
    ASSERT_EQ(a.size(), 8u);
    for (int i = 0; i < 8; ++i) {
      const bool lowRow = i < 2 || (i >= 4 && i < 6);
      EXPECT_EQ(a[i], (Element{lowRow ? g : g + 8, 2 * t + (i & 1) + (i >= 4 ? 8 : 0)}))
          << lane << " a" << i;
    }
    const std::vector<Element> b = laneElements(Operand::B, lane);
    ASSERT_EQ(b.size(), 4u);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(b[i], (Element{2 * t + (i & 1) + (i >= 2 ? 8 : 0), g})) << lane << " b" << i;
    const std::vector<Element> c = laneElements(Operand::C, lane);
    ASSERT_EQ(c.size(), 4u);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(c[i], (Element{i < 2 ? g : g + 8, 2 * t + (i & 1)})) << lane << " c" << i;
  }
  // Hand-checked: lane 5 is in group 1, place 1.
  EXPECT_EQ(laneElements(Operand::A, 5)[0], (Element{1, 2}));
  EXPECT_EQ(laneElements(Operand::B, 5)[2], (Element{10, 1}));
  EXPECT_EQ(laneElements(Operand::C, 5)[3], (Element{9, 3}));
}

TEST(TensorCoresFragments, EveryElementHasExactlyOneHolder) {
  for (Operand op : {Operand::A, Operand::B, Operand::C}) {
    std::set<std::pair<int, int>> seen;
    for (int lane = 0; lane < 32; ++lane)
      for (const Element& e : laneElements(op, lane)) {
        EXPECT_GE(e.row, 0);
        EXPECT_LT(e.row, operandRows(op));
        EXPECT_GE(e.col, 0);
        EXPECT_LT(e.col, operandCols(op));
        EXPECT_TRUE(seen.insert({e.row, e.col}).second);
      }
    EXPECT_EQ(seen.size(), std::size_t(operandRows(op) * operandCols(op)));
    for (int r = 0; r < operandRows(op); ++r)
      for (int c = 0; c < operandCols(op); ++c) {
        const Holder h = holderOf(op, r, c);
        ASSERT_GE(h.lane, 0);
        EXPECT_EQ(laneElements(op, h.lane)[std::size_t(h.index)], (Element{r, c}));
      }
  }
  EXPECT_EQ(holderOf(Operand::C, 16, 0).lane, -1);
}

// ldmatrix reads 8 rows of one 16-byte chunk. A's rows are 64 bytes: rows 0, 2, 4, 6 start on the
// same banks, so 4 of the 8 queue; B's rows are 256 bytes: all 8 on the same banks. The swizzle
// spreads both over the 32 banks, for every chunk and every 8-row band.
TEST(TensorCoresBanks, TheSwizzleRemovesTheConflictsLdmatrixMeets) {
  for (int row0 = 0; row0 < kTileRowsA; row0 += 8)
    for (int chunk = 0; chunk < kTileColsA / 8; ++chunk) {
      EXPECT_EQ(ldmatrixWays(Tile::A, row0, chunk, false), 4) << row0 << " " << chunk;
      EXPECT_EQ(ldmatrixWays(Tile::A, row0, chunk, true), 1) << row0 << " " << chunk;
    }
  for (int row0 = 0; row0 < kTileRowsB; row0 += 8)
    for (int chunk = 0; chunk < kTileColsB / 8; ++chunk) {
      EXPECT_EQ(ldmatrixWays(Tile::B, row0, chunk, false), 8) << row0 << " " << chunk;
      EXPECT_EQ(ldmatrixWays(Tile::B, row0, chunk, true), 1) << row0 << " " << chunk;
    }
  // The swizzle moves chunks within their row, each to a place of its own.
  for (Tile t : {Tile::A, Tile::B}) {
    const int rows = t == Tile::A ? kTileRowsA : kTileRowsB;
    const int chunks = (t == Tile::A ? kTileColsA : kTileColsB) / 8;
    for (int r = 0; r < rows; ++r) {
      std::set<int> places;
      for (int c = 0; c < chunks; ++c) {
        const int s = storedChunk(t, r, c, true);
        EXPECT_GE(s, 0);
        EXPECT_LT(s, chunks);
        places.insert(s);
        EXPECT_EQ(storedChunk(t, r, c, false), c);
      }
      EXPECT_EQ(int(places.size()), chunks);
    }
  }
  EXPECT_EQ(firstBank(Tile::A, 1, 0, false), 16);  // 64 bytes on: 16 banks on
  EXPECT_EQ(firstBank(Tile::B, 1, 0, false), 0);   // 256 bytes on: the same banks again
}

TEST(TensorCoresSizes, PaddedToWholeTiles) {
  const Padded one = padded(1, 1, 1);
  EXPECT_EQ(one.M, 128);
  EXPECT_EQ(one.N, 256);
  EXPECT_EQ(one.K, 64);
  const Padded odd = padded(4097, 4095, 4093);
  EXPECT_EQ(odd.M, 4224);
  EXPECT_EQ(odd.N, 4096);
  EXPECT_EQ(odd.K, 4096);
  const Padded whole = padded(4096, 256, 64);  // whole tiles already
  EXPECT_EQ(whole.M, 4096);
  EXPECT_EQ(whole.N, 256);
  EXPECT_EQ(whole.K, 64);
  EXPECT_DOUBLE_EQ(flops(2, 3, 4), 48.0);
}

TEST(TensorCoresInputs, EveryFormatHoldsThemExactly) {
  const std::vector<float> v = randomInputs(20000, 7);
  ASSERT_EQ(v.size(), 20000u);
  std::set<float> distinct(v.begin(), v.end());
  EXPECT_GT(distinct.size(), 400u);  // most of the 513 grid points
  for (float x : v) {
    EXPECT_GE(x, -1.0f);
    EXPECT_LE(x, 1.0f);
    EXPECT_EQ(x * 256.0f, float(int(x * 256.0f)));
    EXPECT_EQ(floats::roundTo(floats::Format::BFloat16, x), double(x));
    EXPECT_EQ(floats::roundTo(floats::Format::Half, x), double(x));
  }
  EXPECT_EQ(randomInputs(100, 3), randomInputs(100, 3));
  EXPECT_NE(randomInputs(100, 3), randomInputs(100, 4));
}

TEST(TensorCoresCheck, BoundGrowsWithKAndCatchesAWrongElement) {
  EXPECT_GT(errorBound(1), 0);
  EXPECT_LT(errorBound(16), errorBound(4096));
  EXPECT_LT(errorBound(16384), 0.01);
  // A 2 x 2 product with C stored in a padded row of 4: one element off by 1e-3 is wrong.
  const float A[] = {1, 2, 3, 4}, B[] = {0.5f, -1, 0.25f, 2};
  const GemmReference ref = referenceProduct(A, B, 2, 2, 2, {0, 1});
  float C[] = {1.0f, 3.0f, 0, 0, 2.5f, 5.0f, 0, 0};
  Correctness ok = compareProduct(C, 4, ref, errorBound(2));
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.checked, 4u);
  C[5] += 1e-3f;
  Correctness bad = compareProduct(C, 4, ref, errorBound(2));
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.wrong, 1u);
  EXPECT_EQ(bad.firstWrong, 5u);
  C[5] = std::numeric_limits<float>::quiet_NaN();  // the poison, never written
  EXPECT_FALSE(compareProduct(C, 4, ref, errorBound(2)).ok());
}

TEST(TensorCoresRefusals, SizesAndMemorySaySo) {
  TensorParams p;
  p.M = 0;
  Status s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.sentence().find("M"), std::string::npos) << s.sentence();
  p = TensorParams{};
  p.runs = 0;
  EXPECT_FALSE(validate(p).ok());
  p = TensorParams{.M = 16384, .N = 16384, .K = 16384};
  EXPECT_TRUE(validate(p).ok());
  s = checkMemory(p, std::size_t{1} << 30);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.sentence().find("16384 x 16384 x 16384"), std::string::npos) << s.sentence();
  EXPECT_TRUE(checkMemory(p, deviceBytesNeeded(p)).ok());
}

}  // namespace
}  // namespace cudalab::tensor_cores

namespace cudalab::tensor_cores {
namespace {

// Mixed precision: fewer mantissa bits in the inputs, larger errors (E4M3's 3, BF16's 7, FP16's
// and TF32's 10, float32's 23); the rounding of the inputs averages out as K grows while FP16
// sums lose more and more; the same seed gives the same figures.
TEST(TensorCoresPrecision, ErrorsFollowTheFormatsAndFp16SumsGrow) {
  const int Ks[] = {64, 1024, 16384};
  const std::vector<MixedCurve> c = productErrors(Ks, 16, 11);
  ASSERT_EQ(c.size(), mixedFormats().size());
  auto at = [&](Mixed id, int k) {
    for (const MixedCurve& m : c)
      if (m.id == id) return m.points[static_cast<std::size_t>(k)].median;
    return -1.0;
  };
  for (const MixedCurve& m : c) {
    ASSERT_EQ(m.points.size(), 3u);
    for (const MixedPoint& p : m.points) {
      EXPECT_TRUE(std::isfinite(p.median)) << mixedInfo(m.id).key;
      EXPECT_GE(p.max, p.median);
      EXPECT_GE(p.median, 0.0);
    }
  }
  for (int k = 0; k < 3; ++k) {
    EXPECT_GT(at(Mixed::Fp8E4M3, k), at(Mixed::BFloat16, k)) << k;
    EXPECT_GT(at(Mixed::BFloat16, k), at(Mixed::Half, k)) << k;
    EXPECT_GT(at(Mixed::Half, k), at(Mixed::Float32, k)) << k;
    EXPECT_GT(at(Mixed::Tf32, k), at(Mixed::Float32, k)) << k;
    // BF16's inputs are rounded at 2^-9 relative at most: the products' error, averaged.
    EXPECT_LT(at(Mixed::BFloat16, k), 0x1p-8) << k;
  }
  // FP16 sums: worse than float32 sums of the same inputs, and more so at large K.
  EXPECT_GT(at(Mixed::HalfSums, 2), 4 * at(Mixed::Half, 2));
  EXPECT_GT(at(Mixed::HalfSums, 2) / at(Mixed::Half, 2),
            at(Mixed::HalfSums, 0) / at(Mixed::Half, 0));
  const std::vector<MixedCurve> again = productErrors(Ks, 16, 11);
  EXPECT_EQ(again[3].points[1].median, c[3].points[1].median);
  EXPECT_EQ(defaultPrecisionKs().front(), 16);
  EXPECT_EQ(defaultPrecisionKs().back(), 16384);
}

}  // namespace
}  // namespace cudalab::tensor_cores

namespace cudalab::tensor_cores {
namespace {

// The roofline's bytes: a tiled step re-reads A once per block column and B once per block row; a
// library row moves A, B and C once.
TEST(TensorCoresRoofline, BytesCountEveryTilesReread) {
  const int M = 4096, N = 4096, K = 4096;
  const double a = 4096.0 * 4096 * 2, c = 4096.0 * 4096 * 4;
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::CublasBf16), InputFormat::BFloat16, M, N, K),
                   2 * a + c);
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::CublasTf32), InputFormat::BFloat16, M, N, K),
                   4 * a + c);  // float32 inputs
  // 128 x 256 tiles: 16 block columns re-read A, 32 block rows re-read B.
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::WgmmaWs), InputFormat::BFloat16, M, N, K),
                   16 * a + 32 * a + c);
  // 32 x 32 tiles: 128 of each.
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::WmmaGlobal), InputFormat::Half, M, N, K),
                   128 * a + 128 * a + c);
}

}  // namespace
}  // namespace cudalab::tensor_cores

namespace cudalab::tensor_cores {
namespace {

// One stage: load, multiply, load, ...: the tensor cores work mma / (load + mma) of the time.
// Three stages: after the first load the loads hide behind the multiplies when they are shorter
// than two multiplies, and the tensor cores work all but the first load's time.
TEST(TensorCoresPipeline, StagesHideTheLoads) {
  const PipelineRun one = pipelineModel(8, 1, 3.0, 1.0);
  ASSERT_EQ(one.events.size(), 16u);
  EXPECT_DOUBLE_EQ(one.total, 8 * 4.0);
  EXPECT_DOUBLE_EQ(one.mmaBusy, 0.25);
  EXPECT_DOUBLE_EQ(one.events[2].start, 4.0);  // tile 1's load waits for tile 0's multiply
  const PipelineRun three = pipelineModel(8, 3, 1.5, 1.0);
  EXPECT_DOUBLE_EQ(three.events[2].start, 0.0);  // tile 1 loads at once, beside tile 0
  EXPECT_DOUBLE_EQ(three.total, 1.5 + 8 * 1.0);  // the multiplies back to back after the first
  EXPECT_NEAR(three.mmaBusy, 8.0 / 9.5, 1e-12);
  // Loads four times as long as a multiply: three stages keep two loads in flight, so the
  // multiplies run at half speed, twice as fast as with one stage.
  const PipelineRun slow1 = pipelineModel(16, 1, 4.0, 1.0);
  const PipelineRun slow3 = pipelineModel(16, 3, 4.0, 1.0);
  EXPECT_LT(slow3.total, slow1.total);
  EXPECT_GT(slow3.mmaBusy, slow1.mmaBusy);
  for (const PipelineEvent& e : slow3.events)
    EXPECT_LE(e.start, e.end);
  EXPECT_TRUE(pipelineModel(0, 3, 1, 1).events.empty());
}

}  // namespace
}  // namespace cudalab::tensor_cores
