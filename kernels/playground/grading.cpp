#include "playground/grading.hpp"

#include <algorithm>
#include <set>

#include "common/format.hpp"
#include "common/translatable.hpp"

namespace cudalab::playground {

// ---------------------------------------------------------------------------------------------
// [SECTION] The sizes
// ---------------------------------------------------------------------------------------------

namespace {

// The largest size graded: 2^28 elements keep the worker's CPU reference within seconds; n x n
// matrices stop at 2^26 elements (two of them in the worker, and a grade runs every size), and a
// matrix product's reference costs n^3, so its largest n is far smaller.
constexpr long long kLargest = 1LL << 28;
constexpr long long kLargestProduct = 1536;
constexpr long long kLargestMatrix = 8192;

}  // namespace

std::vector<GradeCase> gradingCases(const Exercise& e, const RunParams& p) {
  std::vector<GradeCase> out;
  if (e.kind == Kind::Counter) {
    // N is 1: what varies is how many threads add, and how they are grouped.
    const Launch launches[] = {{{1, 1, 1}, {1, 1, 1}},
                               {{1, 1, 1}, {33, 1, 1}},
                               p.launch,
                               {{129, 1, 1}, {33, 1, 1}},
                               {{4096, 1, 1}, {256, 1, 1}}};
    std::set<std::pair<long long, long long>> seen;
    for (const Launch& l : launches) {
      if (!seen.insert({l.grid.count(), l.block.count()}).second) continue;
      out.push_back(
          {1, l, false,
           Phrase{N_("%s threads in blocks of %s"),
                  {thousands(l.grid.count() * l.block.count()), thousands(l.block.count())}}});
    }
    return out;
  }
  const bool matrix = squareMatrix(e.kind);
  // Matrices: N is the side, and the block's side is what a tile edge meets (one block per row:
  // the block's threads against the row's length).
  const long long b = gridOverMatrix(e.kind) ? p.launch.block.x : p.launch.block.count();
  // The CPU's reference of a product costs n^3, of the others n^2 (n^2 capped at 2^26).
  const long long largest = std::min(e.maxN, matrixProduct(e.kind) ? kLargestProduct
                                             : matrix              ? kLargestMatrix
                                                                   : kLargest);
  std::vector<std::pair<long long, Phrase>> sizes = {
      {1, Phrase{N_("one element"), {}}},
      {e.minN, Phrase{N_("the smallest N the exercise takes (%s)"), {thousands(e.minN)}}},
      {31, Phrase{N_("one less than a warp (31)"), {}}},
      {32, Phrase{N_("one warp (32)"), {}}},
      {33, Phrase{N_("one more than a warp (33)"), {}}},
      {b - 1, Phrase{N_("one less than the block (%s)"), {thousands(b - 1)}}},
      {b, Phrase{N_("the block's size (%s)"), {thousands(b)}}},
      {b + 1, Phrase{N_("one more than the block (%s)"), {thousands(b + 1)}}},
      {1009, Phrase{N_("a prime (1,009)"), {}}},
      {3 * b + 7, Phrase{N_("three blocks and seven (%s)"), {thousands(3 * b + 7)}}},
      {p.n, Phrase{N_("the exercise's size (%s)"), {thousands(p.n)}}},
      {largest - 3, Phrase{N_("the largest graded, odd (%s)"), {thousands(largest - 3)}}},
  };
  if (!p.autoGrid) {
    // A fixed grid: fewer elements than its threads.
    const Launch l = p.launch;
    // What the grid covers: a side of the matrix, rows (one block each), or elements.
    const long long threads = gridOverMatrix(e.kind)    ? l.grid.x * l.block.x
                              : e.kind == Kind::Softmax ? l.grid.x
                                                        : l.grid.count() * l.block.count();
    if (threads > 2)
      sizes.push_back({threads / 2 + 1, Phrase{N_("fewer elements than threads (%s)"),
                                               {thousands(threads / 2 + 1)}}});
    sizes.push_back(
        {threads + 1, Phrase{N_("one more than the threads (%s)"), {thousands(threads + 1)}}});
  }
  std::sort(sizes.begin(), sizes.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [n, why] : sizes) {
    if (n < e.minN || n > e.maxN) continue;
    if (!out.empty() && out.back().n == n) continue;  // the first reason given stands
    out.push_back({n, p.launch, p.autoGrid, std::move(why)});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Grading
// ---------------------------------------------------------------------------------------------

bool Grade::passed() const {
  if (cancelled || sizes.empty()) return false;
  return std::all_of(sizes.begin(), sizes.end(),
                     [](const SizeVerdict& v) { return v.ran && v.ok; });
}

int Grade::failed() const {
  return static_cast<int>(std::count_if(sizes.begin(), sizes.end(),
                                        [](const SizeVerdict& v) { return !v.ran || !v.ok; }));
}

std::vector<Phrase> verdictOf(const RunReport& r) {
  std::vector<Phrase> out;
  if (r.ok) return out;
  if (r.sum && r.exactSum && *r.sum != *r.exactSum) {
    out.push_back(
        {N_("the total is %s, the exact sum %s"), {thousands(*r.sum), thousands(*r.exactSum)}});
  } else if (!r.counts.empty() && r.wrong > 0) {
    out.push_back({N_("the counter ended at %s"), {thousands(r.counts.back())}});
  } else if (r.checked == 0) {
    out.push_back({N_("nothing was checked"), {}});
  } else {
    if (r.unwritten > 0)
      out.push_back({N_("%s of %s never written"), {thousands(r.unwritten), thousands(r.checked)}});
    if (r.wrong - r.unwritten > 0)
      out.push_back(
          {N_("%s of %s wrong"), {thousands(r.wrong - r.unwritten), thousands(r.checked)}});
  }
  if (r.pastEnd > 0) out.push_back({N_("%s writes past the end"), {thousands(r.pastEnd)}});
  if (r.beforeStart > 0)
    out.push_back({N_("%s writes before the start"), {thousands(r.beforeStart)}});
  if (out.empty()) out.push_back({N_("not right"), {}});  // a check that failed without counts
  return out;
}

std::string englishOf(const std::vector<Phrase>& clauses) {
  std::string out;
  for (const Phrase& p : clauses)
    out += (out.empty() ? "" : "; ") + p.english();
  return out;
}

Grade gradeAtEverySize(const Exercise& e, const RunParams& p,
                       const std::function<Result<RunReport>(const RunParams&)>& run,
                       const std::atomic<bool>* cancel,
                       const std::function<void(float, const std::string&)>& progress) {
  Grade g;
  const std::vector<GradeCase> cases = gradingCases(e, p);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cancel && cancel->load()) {
      g.cancelled = true;
      break;
    }
    const GradeCase& c = cases[i];
    if (progress)
      progress(float(i) / float(cases.size()), Phrase{N_("N = %s"), {thousands(c.n)}}.packed());
    RunParams q = p;
    q.n = c.n;
    q.launch = c.launch;
    q.autoGrid = c.autoGrid;
    q.runs = 1;
    q.compare = false;
    q.lineCounters = false;
    q.seed = p.seed + 7919 * (i + 1);  // fresh inputs at every size
    SizeVerdict v;
    v.c = c;
    Result<RunReport> r = run(q);
    if (!r) {
      v.why = {Phrase::of(r.status())};
    } else {
      v.ran = true;
      v.ok = r->ok;
      v.why = verdictOf(*r);
      v.ms = r->medianMs;
    }
    g.sizes.push_back(std::move(v));
  }
  if (progress) progress(1, N_("done"));
  return g;
}

}  // namespace cudalab::playground
