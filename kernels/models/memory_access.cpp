#include "models/memory_access.hpp"

#include <algorithm>
#include <bit>
#include <utility>

namespace cudalab::mem {

int WarpRequest::activeLanes() const {
  return std::popcount(activeMask);
}

WarpRequest stridedRequest(std::uint64_t base, std::uint64_t strideBytes, int elementBytes) {
  WarpRequest r;
  r.elementBytes = elementBytes;
  for (int l = 0; l < kWarpSize; ++l)
    r.address[l] = base + strideBytes * std::uint64_t(l);
  return r;
}

WarpRequest contiguousRequest(std::uint64_t base, int elementBytes) {
  return stridedRequest(base, std::uint64_t(elementBytes), elementBytes);
}

namespace {

int clampedElement(int bytes) {
  return std::clamp(bytes, 1, kMaxElementBytes);
}

// Sorts and removes repeats.
template <class T>
void unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

double GlobalAccess::efficiency() const {
  if (sectors.empty()) return 0;
  return double(bytesRequested) / double(bytesMoved());
}

GlobalAccess analyzeGlobal(const WarpRequest& r) {
  const std::uint64_t size = std::uint64_t(clampedElement(r.elementBytes));
  GlobalAccess g;
  g.laneLine.fill(-1);
  g.laneSectors.fill(0);
  // Byte ranges asked for, merged to count distinct bytes (lanes may overlap or coincide).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!r.active(l)) continue;
    const std::uint64_t first = r.address[l], last = first + size - 1;
    for (std::uint64_t s = first / kSectorBytes; s <= last / kSectorBytes; ++s)
      g.sectors.push_back(s);
    for (std::uint64_t line = first / kLineBytes; line <= last / kLineBytes; ++line)
      g.lines.push_back(line);
    g.laneSectors[l] = int(last / kSectorBytes - first / kSectorBytes + 1);
    ranges.emplace_back(first, last + 1);
  }
  unique(g.sectors);
  unique(g.lines);
  for (int l = 0; l < kWarpSize; ++l)
    if (r.active(l))
      g.laneLine[l] =
          int(std::lower_bound(g.lines.begin(), g.lines.end(), r.address[l] / kLineBytes) -
              g.lines.begin());
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t end = 0;
  for (const auto& [a, b] : ranges) {
    const std::uint64_t from = std::max(a, end);
    if (b > from) g.bytesRequested += std::int64_t(b - from);
    end = std::max(end, b);
  }
  return g;
}

SharedAccess analyzeShared(const WarpRequest& r) {
  const int size = clampedElement(r.elementBytes);
  SharedAccess s;
  s.laneBank.fill(-1);
  s.lanePass.fill(0);
  s.lanePhase.fill(0);
  s.bankWords.fill(0);
  for (auto& b : s.phaseBankWords)
    b.fill(0);
  s.laneShares.fill(false);
  s.phases = size <= 4 ? 1 : size <= 8 ? 2 : 4;
  const int lanesPerPhase = kWarpSize / s.phases;
  for (int phase = 0; phase < s.phases; ++phase) {
    // Distinct words per bank in this phase, in the order lanes first ask for them: a word's
    // position in its bank's list is the pass that serves it.
    std::array<std::vector<std::uint64_t>, kBanks> words;
    for (int l = phase * lanesPerPhase; l < (phase + 1) * lanesPerPhase; ++l) {
      if (!r.active(l)) continue;
      const std::uint64_t first = r.address[l] / kBankBytes;
      const std::uint64_t last = (r.address[l] + std::uint64_t(size) - 1) / kBankBytes;
      for (std::uint64_t w = first; w <= last; ++w) {
        auto& list = words[w % kBanks];
        auto it = std::find(list.begin(), list.end(), w);
        if (it == list.end()) {
          list.push_back(w);
          it = list.end() - 1;
        } else if (w == first) {
          s.broadcast = true;
        }
        if (w == first) {
          s.laneBank[l] = int(w % kBanks);
          s.lanePass[l] = int(it - list.begin());
          s.lanePhase[l] = phase;
        }
      }
    }
    // Lanes one of whose words another lane of the phase also reads.
    const auto firstWord = [&](int l) { return r.address[l] / kBankBytes; };
    const auto lastWord = [&](int l) {
      return (r.address[l] + std::uint64_t(size) - 1) / kBankBytes;
    };
    for (int l = phase * lanesPerPhase; l < (phase + 1) * lanesPerPhase; ++l)
      for (int m = phase * lanesPerPhase; m < (phase + 1) * lanesPerPhase; ++m)
        if (m != l && r.active(l) && r.active(m) && firstWord(l) <= lastWord(m) &&
            firstWord(m) <= lastWord(l))
          s.laneShares[l] = true;
    int passes = 0;
    for (int b = 0; b < kBanks; ++b) {
      s.phaseBankWords[size_t(phase)][size_t(b)] = int(words[b].size());
      passes = std::max(passes, int(words[b].size()));
    }
    s.wavefronts += passes;
    if (passes > s.degree) {
      s.degree = passes;
      for (int b = 0; b < kBanks; ++b)
        s.bankWords[b] = int(words[b].size());
    }
  }
  return s;
}

}  // namespace cudalab::mem
