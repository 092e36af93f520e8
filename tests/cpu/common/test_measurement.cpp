// The runner's statistics and the CSV/JSON export of measurements.
#include <gtest/gtest.h>

#include <sstream>

#include "common/measurement.hpp"
#include "common/measurement_export.hpp"

namespace cudalab {
namespace {

TEST(Measurement, SummarizeMedianMinMax) {
  PhaseStats odd{0, 0, 0, {5, 1, 3}};
  summarize(odd);
  EXPECT_DOUBLE_EQ(odd.medianMs, 3);
  EXPECT_DOUBLE_EQ(odd.minMs, 1);
  EXPECT_DOUBLE_EQ(odd.maxMs, 5);
  EXPECT_EQ(odd.samplesMs.size(), 3u) << "samples stay in run order";
  EXPECT_DOUBLE_EQ(odd.samplesMs[0], 5);
  PhaseStats even{0, 0, 0, {4, 1, 3, 10}};
  summarize(even);
  EXPECT_DOUBLE_EQ(even.medianMs, 3.5);
  PhaseStats none;
  summarize(none);
  EXPECT_DOUBLE_EQ(none.medianMs, 0);
}

TEST(Measurement, DerivedRates) {
  Measurement m;
  m.phases[0].medianMs = 1;
  m.phases[1].medianMs = 2;
  m.phases[2].medianMs = 3;
  m.kernelBytes = 8e9;
  m.kernelFlops = 4e9;
  EXPECT_DOUBLE_EQ(m.totalMedianMs(), 6);
  EXPECT_DOUBLE_EQ(m.kernelGBps(), 4000);  // 8 GB in 2 ms
  EXPECT_DOUBLE_EQ(m.kernelGFlops(), 2000);
  Measurement zero;
  EXPECT_DOUBLE_EQ(zero.kernelGBps(), 0) << "no division by zero";
}

MeasuredRow row(const std::string& label, double tpb, double kernelMs, size_t wrong) {
  MeasuredRow r;
  r.label = label;
  r.params = {{"threads_per_block", tpb}};
  r.m.phases[1].samplesMs = {kernelMs, kernelMs * 2};
  for (PhaseStats& p : r.m.phases)
    summarize(p);
  r.m.kernelBytes = 1e6;
  r.m.runs = 2;
  r.m.check.ran = true;
  r.m.check.checked = 100;
  r.m.check.wrong = wrong;
  return r;
}

TEST(MeasurementExport, CsvHasAHeaderAndOneLinePerRow) {
  const std::string csv = toCsv({row("a,b", 128, 1.0, 0), row("c", 256, 2.0, 3)});
  std::istringstream in(csv);
  std::string header, l1, l2, extra;
  std::getline(in, header);
  std::getline(in, l1);
  std::getline(in, l2);
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_EQ(header.rfind("label,threads_per_block,h2d_median_ms,h2d_min_ms,h2d_max_ms,", 0), 0u);
  EXPECT_NE(header.find(",wrong,"), std::string::npos);
  EXPECT_EQ(l1.rfind("\"a,b\",128,", 0), 0u) << "labels with commas are quoted";
  EXPECT_NE(l1.find(",1.5,1,2,"), std::string::npos) << "kernel median, min, max: " << l1;
  EXPECT_EQ(l2.rfind("c,256,", 0), 0u);
  EXPECT_NE(l2.find(",100,3,"), std::string::npos) << "checked and wrong: " << l2;
  const auto cols = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  EXPECT_EQ(cols(header), cols(l2));
  EXPECT_EQ(cols(header) + 1, cols(l1)) << "the quoted comma adds one to l1 only";
}

TEST(MeasurementExport, JsonKeepsEverySample) {
  nlohmann::json j = toJson({row("x", 64, 0.5, 0)});
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["label"], "x");
  EXPECT_EQ(j[0]["params"]["threads_per_block"], 64);
  EXPECT_EQ(j[0]["phases"]["kernel"]["samples_ms"].size(), 2u);
  EXPECT_DOUBLE_EQ(j[0]["phases"]["kernel"]["median_ms"], 0.75);
  EXPECT_EQ(j[0]["check"]["checked"], 100);
}

}  // namespace
}  // namespace cudalab
