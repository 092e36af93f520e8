// The atomics lesson's benchmark (`cudalab bench atomics`), registered through its line in
// lessons/registry.cpp:
//   1. the histogram ladder at N = 2^28, 256 bins, on uniform bytes and on bytes all in one bin,
//      against the device copy ceiling and CUB's HistogramEven (targets: the best hand-written
//      step at least 1,200 GB/s of input on both, and at least CUB's speed);
//   2. the course's race at 64 x 64, 1,000 runs of each counter;
//   3. the contention curves: threads on one counter, and 2^22 threads over 1 to 2^22 counters;
//   4. time against skew at 2^26 bytes.
#include <algorithm>
#include <cstdio>

#include "atomics/atomics.hpp"
#include "core/bench.hpp"
#include "lessons/atomics/atomics_lesson.hpp"
#include "common/format.hpp"

namespace cudalab {

namespace {

using namespace atomics;

Status ladderTable(const HistParams& p, const std::string& title, std::string& md,
                   nlohmann::json& j, double& bestGBps, double& bestOfCub) {
  std::fprintf(stderr, "atomics: ladder, %s...\n", title.c_str());
  Result<HistReport> r = measureHistLadder(p, allHistSteps(), nullptr, nullptr);
  if (!r) return r.status();
  md += "\n#### " + title +
        fmt(" (median of %d runs; copy ceiling %.0f GB/s, read + write)\n\n", p.runs, r->copyGBps) +
        "| step | ms | input GB/s | of copy | of CUB | global atomics / value | shared atomics / "
        "value | blocks (sub-histograms) | correct |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  bestGBps = bestOfCub = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const HistStepResult& s : r->steps) {
    const HistStepInfo& info = histStepInfo(s.step);
    if (info.gpu && s.step != HistStepId::Cub && s.gbps > bestGBps) {
      bestGBps = s.gbps;
      bestOfCub = s.ofCub;
    }
    auto per = [](double v) { return v < 0 ? std::string("-") : fmt("%.3g", v); };
    md += "| " + std::string(info.label) +
          fmt(" | %.4f | %.0f | %.1f%% | %.1f%% | ", s.ms, s.gbps, 100 * s.ofCopy, 100 * s.ofCub) +
          per(s.atomics.global) + " | " + per(s.atomics.shared) + " | " +
          (s.blocks > 0
               ? thousands(s.blocks) + (s.subHistograms > 0 ? fmt(" (%d)", s.subHistograms) : "")
               : std::string("-")) +
          " | " + (s.check.ok() ? "yes" : "**NO**") + " |\n";
    rows.push_back({{"step", info.key},
                    {"ms", s.ms},
                    {"gbps", s.gbps},
                    {"of_copy", s.ofCopy},
                    {"of_cub", s.ofCub},
                    {"correct", s.check.ok()}});
  }
  md += fmt("\nBest hand-written step: **%.0f GB/s**, %.1f%% of CUB's speed.\n", bestGBps,
            100 * bestOfCub);
  j["ladders"].push_back({{"title", title},
                          {"copy_gbps", r->copyGBps},
                          {"distinct_per_warp", r->distinctPerWarp},
                          {"steps", rows}});
  return {};
}

// `cudalab bench atomics`: the histogram ladder at 2^28 bytes (uniform and all in one bin) against
// the copy ceiling and CUB, the course's race, the contention curves, time against skew.
int benchAtomics(const BenchOptions& opt) {
  BenchDoc doc = startBench(opt, "Atomics");
  auto& [rt, md, j] = doc;

  // 1. The ladder.
  HistParams p;
  p.source = Source::Uniform;
  p.n = opt.quick ? 1LL << 20 : 1LL << 28;
  p.bins = 256;
  p.block = 256;
  if (opt.quick) p.runs = 2;
  double worstBest = 1e300, worstOfCub = 1e300;
  for (double skew : {0.0, 1.0}) {
    p.skew = skew;
    double best = 0, ofCub = 0;
    const std::string title =
        skew == 0 ? "2^28 uniform bytes, 256 bins" : "2^28 bytes all in one bin, 256 bins";
    if (Status s = ladderTable(p, title, md, j, best, ofCub); !s) return fail(s);
    worstBest = std::min(worstBest, best);
    worstOfCub = std::min(worstOfCub, ofCub);
  }
  md +=
      fmt("\nTargets: the best hand-written step at least 1,200 GB/s of input on both "
          "distributions and at least CUB's speed. Measured: at least **%.0f GB/s** and "
          "**%.1f%%** of CUB on both.\n",
          worstBest, 100 * worstOfCub);
  j["worst_best_gbps"] = worstBest;
  j["worst_best_of_cub"] = worstOfCub;
  {
    HistParams c;  // the course's case, for reference
    c.n = opt.quick ? 1LL << 18 : 1LL << 26;
    c.bins = 256;
    if (opt.quick) c.runs = 2;
    double best = 0, ofCub = 0;
    if (Status s =
            ladderTable(c, "2^26 normal float32 numbers in [-4, 4), 256 bins", md, j, best, ofCub);
        !s)
      return fail(s);
  }

  // 2. The race.
  std::fprintf(stderr, "atomics: race...\n");
  Result<RaceReport> race =
      runRace(RaceParams{kCourseBlocks, kCourseThreads, opt.quick ? 3 : 1000}, nullptr, nullptr);
  if (!race) return fail(race.status());
  md +=
      "\n#### The course's race: 64 blocks x 64 threads, 1,000 runs each\n\n"
      "| variant | lowest | mean | highest | different results | global atomics | ms |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const RaceVariant& v : race->variants) {
    md += "| " + std::string(counterInfo(v.id).label) +
          fmt(" | %lld | %.1f | %lld | %d | %lld | %.4f |\n", v.minCount(), v.meanCount(),
              v.maxCount(), v.distinct(), globalAtomics(v.id, kCourseBlocks, kCourseThreads),
              v.medianMs);
    j["race"].push_back({{"variant", counterInfo(v.id).key},
                         {"min", v.minCount()},
                         {"mean", v.meanCount()},
                         {"max", v.maxCount()},
                         {"ms", v.medianMs}});
  }

  // 3. Contention.
  std::fprintf(stderr, "atomics: contention...\n");
  const std::vector<long long> threadCounts =
      opt.quick ? std::vector<long long>{1 << 10, 1 << 14} : defaultThreadCounts();
  Result<std::vector<ContentionPoint>> t = measureThreadSweep(threadCounts, nullptr, nullptr);
  if (!t) return fail(t.status());
  md +=
      "\n#### Every thread adds 1 to one counter (blocks of 256; ms, median of 5)\n\n"
      "| threads | plain | global | shared | warp |\n| ---: | ---: | ---: | ---: | ---: |\n";
  for (long long n : threadCounts) {
    md += "| " + thousands(n);
    for (const CounterInfo& c : counters())
      for (const ContentionPoint& pt : *t)
        if (pt.threads == n && pt.id == c.id)
          md += fmt(" | %.4f%s", pt.ms, pt.ok || !c.exact ? "" : " (WRONG)");
    md += " |\n";
  }
  for (const ContentionPoint& pt : *t)
    j["threads"].push_back({{"variant", counterInfo(pt.id).key},
                            {"threads", pt.threads},
                            {"ms", pt.ms},
                            {"exact", pt.ok}});
  const long long addressThreads = opt.quick ? 1LL << 14 : kAddressSweepThreads;
  Result<std::vector<ContentionPoint>> a =
      measureAddressSweep(addressThreads, defaultAddressCounts(addressThreads), nullptr, nullptr);
  if (!a) return fail(a.status());
  md += "\n#### " + thousands(addressThreads) +
        " threads, global atomicAdd over N counters (neighbouring threads share)\n\n"
        "| counters | threads per counter | ms | ns per update | exact |\n"
        "| ---: | ---: | ---: | ---: | --- |\n";
  for (const ContentionPoint& pt : *a) {
    md += "| " + thousands(pt.addresses) + " | " + thousands(pt.threads / pt.addresses) +
          fmt(" | %.4f | %.3f | %s |\n", pt.ms, pt.nsPerUpdate(), pt.ok ? "yes" : "**NO**");
    j["addresses"].push_back({{"counters", pt.addresses}, {"ms", pt.ms}, {"exact", pt.ok}});
  }

  // 4. Skew.
  std::fprintf(stderr, "atomics: skew...\n");
  HistParams s = p;
  s.n = opt.quick ? 1LL << 16 : 1LL << 26;
  const std::vector<double> skews = opt.quick ? std::vector<double>{0.0, 1.0} : defaultSkews();
  Result<std::vector<SkewPoint>> sk = measureSkewSweep(s, skews, gpuHistSteps(), nullptr, nullptr);
  if (!sk) return fail(sk.status());
  md +=
      "\n#### Time against skew: 2^26 bytes, 256 bins, a share of them in bin 0 (ms, median "
      "of 5)\n\n| step";
  for (double x : skews)
    md += fmt(" | %.2f", x);
  md += " |\n| ---";
  for (size_t i = 0; i < skews.size(); ++i)
    md += " | ---:";
  md += " |\n";
  for (HistStepId id : gpuHistSteps()) {
    md += "| " + std::string(histStepInfo(id).label);
    for (const SkewPoint& pt : *sk)
      if (pt.step == id) {
        md += fmt(" | %.3f%s", pt.ms, pt.ok ? "" : " (WRONG)");
        j["skew"].push_back(
            {{"step", histStepInfo(id).key}, {"skew", pt.skew}, {"ms", pt.ms}, {"correct", pt.ok}});
      }
    md += " |\n";
  }
  return doc.write(opt, "atomics");
}

}  // namespace

// The benchmarks, registered through the lesson's line in lessons/registry.cpp.
constexpr BenchEntry kBenches[] = {{"atomics", &benchAtomics}};
const std::span<const BenchEntry> kAtomicsBenches = kBenches;

}  // namespace cudalab
