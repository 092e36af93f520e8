// The memory lesson's pictures, computed on the CPU from the access model (no GPU needed): one
// warp's request to global memory (its lanes, 128-byte lines and 32-byte sectors), one warp's
// request to shared memory (lanes by the 32 banks: conflicts and broadcasts) and every warp of the
// kernel as a heat map. Each function draws one panel from the pattern and choices it is given;
// the lesson keeps the state and computes the heat map on its worker thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/lesson.hpp"
#include "memory/access_patterns.hpp"

namespace cudalab {

// Text the memory lesson's panels share: "100%", "12.5%", "0.8%" (a decimal only where the value
// has one), and "1 byte", "16 bytes" translated whole.
std::string memoryPercent(double fraction);
std::string memoryBytes(long long n);

// The shared patterns that read a 32x32 tile, the ones whose tile may be padded to 33 columns.
bool isTilePattern(memory::PatternId id);

// A heat map and what it was computed for (on the lesson's worker thread).
struct MemoryMapView {
  memory::PatternId pattern;
  memory::PatternParams p;
  memory::KernelMap map;
  // Axis labels for small maps (whole numbers only: numeric ticks would repeat them).
  std::vector<std::string> colNames, rowNames;
  std::vector<const char*> colPtrs, rowPtrs;
};

// One warp's request to global memory: `pattern` with `p`, the warp numbered `warp` at loop trip
// `trip`, its sectors and lines, in a sentence and in the warp picture.
void drawMemoryWarpPanel(LessonContext& ctx, memory::PatternId pattern,
                         const memory::PatternParams& p, int warp, int trip);
// One warp's request to shared memory, lanes by banks; the panel's checkbox pads a tile
// (p.padded), so `p` is the lesson's own.
void drawMemoryBanksPanel(LessonContext& ctx, memory::PatternId pattern, memory::PatternParams& p,
                          int warp, int trip);
// Every warp of the kernel as a heat map: `map` the latest computed (none yet: `computing` says
// whether it is on its way), `error` why the last was refused; the panel's radio buttons set
// `ofShared` (the shared pattern's map rather than the global one's), and the lesson computes that
// map next.
void drawMemoryMapPanel(LessonContext& ctx, bool& ofShared, const std::optional<MemoryMapView>& map,
                        const Status& error, bool computing);

}  // namespace cudalab
