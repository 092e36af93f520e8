// The launch-config lesson's CPU side: the float64 reference the GPU's output is checked against,
// and the CPU model of which thread writes which element. The model walks the launch's blocks and
// threads and asks clForEachElement (launch_config_index.cuh), the very function the kernel calls,
// where each thread writes; so the picture drawn without a GPU is the picture a GPU would give.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "launch_config/launch_config.hpp"

namespace cudalab::launch_config {

// ---------------------------------------------------------------------------------------------
// Reference
// ---------------------------------------------------------------------------------------------

namespace {

// 2 * x in float64, rounded to float. A double beyond float's range has no float to round to (a
// plain cast is undefined behaviour there): it becomes infinity, as 2.0f * x does on the GPU.
float doubledReference(float x) {
  const double d = 2.0 * static_cast<double>(x);
  if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
    return d > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  return static_cast<float>(d);
}

}  // namespace

void referenceDouble(std::span<const float> in, std::span<float> out) {
  const size_t n = std::min(in.size(), out.size());
  for (size_t i = 0; i < n; ++i)
    out[i] = doubledReference(in[i]);
}

Correctness compareWithReference(std::span<const float> in, std::span<const float> out) {
  Correctness c;
  c.ran = true;
  const size_t n = std::min(in.size(), out.size());
  c.checked = n;
  const double inf = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    const double ref = doubledReference(in[i]);
    const double got = out[i];
    // Doubling a float is exact, so any difference is wrong. NaN (the poison) compares unequal to
    // everything; its error is unbounded.
    if (got == ref) continue;
    const double abs = std::isfinite(got) ? std::fabs(got - ref) : inf;
    const double rel = std::isfinite(got) ? (ref != 0 ? abs / std::fabs(ref) : inf) : inf;
    if (c.wrong == 0) c.firstWrong = i;
    ++c.wrong;
    c.maxAbsError = std::max(c.maxAbsError, abs);
    c.maxRelError = std::max(c.maxRelError, rel);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// Ownership
// ---------------------------------------------------------------------------------------------

namespace {

std::string num(long long v) {
  std::string digits = std::to_string(v);
  std::string out;
  const size_t len = digits.size();
  for (size_t i = 0; i < len; ++i) {
    if (i > 0 && (len - i) % 3 == 0 && digits[i - 1] != '-') out += ',';
    out += digits[i];
  }
  return out;
}

long long ceilDiv(long long a, long long b) {
  return (a + b - 1) / b;
}

// The blocks that can write anything. With the guard (or a grid-stride loop) a block whose first
// thread is already past the array's end (1D) or right/bottom edge (2D) writes nothing, so the
// model skips it; without the guard every thread writes.
struct VisitRange {
  long long blocksX, blocksY;
  long long threads;      // threads the model follows
  long long maxThreadId;  // largest thread number among them
};

VisitRange visitRange(const LaunchShape& s) {
  const IndexGeometry& g = s.geometry;
  VisitRange v{s.gridX, s.gridY, 0, 0};
  if (g.guard) {
    if (!g.grid2d) {
      v.blocksX = std::min(s.gridX, ceilDiv(s.n, s.threadsPerBlock));
    } else {
      v.blocksX = std::min(s.gridX, ceilDiv(s.width, s.blockX));
      v.blocksY = std::min(s.gridY, ceilDiv(s.height, s.blockY));
    }
  }
  v.threads = v.blocksX * v.blocksY * s.threadsPerBlock;
  v.maxThreadId = ((v.blocksY - 1) * s.gridX + v.blocksX) * s.threadsPerBlock - 1;
  return v;
}

}  // namespace

Phrase pictureLimitsPhrase(const LaunchShape& s) {
  if (s.allocationElements > kMaxPictureElements) {
    if (s.allocationElements > s.n)
      return {N_("The picture follows every element, at most %s of them, and this launch needs %s "
                 "(N = %s and %s canary elements for the writes past the end). Choose a smaller N "
                 "to see the picture; the numbers and the timing do not need it."),
              {num(kMaxPictureElements), num(s.allocationElements), num(s.n),
               num(s.allocationElements - s.n)}};
    return {N_("The picture follows every element, at most %s of them, and this launch needs %s. "
               "Choose a smaller N to see the picture; the numbers and the timing do not need "
               "it."),
            {num(kMaxPictureElements), num(s.allocationElements)}};
  }
  const VisitRange v = visitRange(s);
  if (v.maxThreadId >= static_cast<long long>(kNoOwner))
    return {N_("The picture numbers threads with 32 bits, and this launch has threads numbered up "
               "to %s that write. Use fewer blocks."),
            {num(v.maxThreadId)}};
  return {};
}

Status checkPictureLimits(const LaunchShape& s) {
  const Phrase why = pictureLimitsPhrase(s);
  if (!why.empty()) return Status::errorf(why.format, why.values);
  return {};
}

void countOwnership(OwnershipMap& m) {
  m.unwritten = m.multiplyWritten = m.canaryWrites = m.totalWrites = 0;
  const long long size = static_cast<long long>(m.writes.size());
  for (long long i = 0; i < size; ++i) {
    const uint32_t w = m.writes[static_cast<size_t>(i)];
    m.totalWrites += w;
    if (i >= m.n)
      m.canaryWrites += w;
    else if (w == 0)
      ++m.unwritten;
    else if (w > 1)
      ++m.multiplyWritten;
  }
}

Result<OwnershipMap> modelOwnership(const LaunchConfig& c, const DeviceLimits& limits) {
  // The model shows what the GPU would do, so it refuses what the GPU would refuse.
  CUDALAB_TRY(validate(c, limits));
  Result<LaunchShape> rs = shapeFor(c, limits);
  if (!rs) return rs.status();
  const LaunchShape& s = *rs;
  CUDALAB_TRY(checkPictureLimits(s));
  const VisitRange v = visitRange(s);
  if (v.threads > kMaxModelThreads) {
    return Status::error(Phrase{
        N_("The CPU model follows at most %s threads, and %s of "
           "this launch's threads write. Use fewer blocks (or "
           "turn the guard on)."),
        {num(kMaxModelThreads),
         num(v.threads)}}.english());
  }

  OwnershipMap m;
  m.n = s.n;
  m.fromModel = true;
  const size_t size = static_cast<size_t>(s.allocationElements);
  m.ownerThread.assign(size, kNoOwner);
  m.writes.assign(size, 0);
  uint32_t* owner = m.ownerThread.data();
  uint32_t* writes = m.writes.data();
  const long long alloc = s.allocationElements;
  bool outside = false;

  const unsigned gridX = static_cast<unsigned>(s.gridX);
  const unsigned gridY = static_cast<unsigned>(s.gridY);
  const unsigned blockX = static_cast<unsigned>(s.blockX);
  const unsigned blockY = static_cast<unsigned>(s.blockY);
  for (long long by = 0; by < v.blocksY; ++by) {
    for (long long bx = 0; bx < v.blocksX; ++bx) {
      for (unsigned ty = 0; ty < blockY; ++ty) {
        for (unsigned tx = 0; tx < blockX; ++tx) {
          const ThreadCoord t{static_cast<unsigned>(bx),
                              static_cast<unsigned>(by),
                              tx,
                              ty,
                              gridX,
                              gridY,
                              blockX,
                              blockY};
          const uint32_t tid = static_cast<uint32_t>(clLinearThreadId(t));
          clForEachElement(s.geometry, t, [&](long long e) {
            if (e < 0 || e >= alloc) {
              outside = true;
              return;
            }
            owner[e] = std::min(owner[e], tid);
            ++writes[e];
          });
        }
      }
    }
  }
  if (outside) {
    return Status::error(
        "Internal error: the model computed an index outside the allocation "
        "that shapeFor() sized for this launch (" +
        num(alloc) + " elements).");
  }
  countOwnership(m);
  return m;
}

}  // namespace cudalab::launch_config
