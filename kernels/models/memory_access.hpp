// What one warp's memory instruction costs: a model of global-memory sectors and shared-memory
// banks, for a warp's 32 lane addresses.
//
// Pure C++ (no CUDA headers): the memory lesson draws its lane-to-memory pictures and its
// whole-kernel heat map from it, the CPU tests check it against hand-worked cases, and the
// benchmark compares it with Nsight Compute's counters for real kernels.
//
// [SECTION] Requests
//   A WarpRequest is what one load or store instruction asks for: a byte address per lane, which
//   lanes take part, and the element size (1 to 16 bytes).
//
// [SECTION] Global memory
//   L1 and L2 move global memory in 32-byte sectors; a 128-byte line holds four of them. A warp's
//   request costs the sectors its lanes touch, however many lanes share one:
//
//     WarpRequest r = contiguousRequest(0, 4);   // 32 consecutive floats
//     GlobalAccess g = analyzeGlobal(r);         // 4 sectors, 1 line, efficiency 100%
//
// [SECTION] Shared memory
//   Shared memory has 32 banks of 4-byte words; bank = (address / 4) % 32. Lanes reading the same
//   word are served together (broadcast); lanes reading different words of one bank are served
//   one after another, so the worst bank's count of distinct words is the request's n-way
//   conflict degree:
//
//     SharedAccess s = analyzeShared(stridedRequest(0, 32 * 4, 4));   // one column of a
//     s.degree;                                                       // 32x32 float tile: 32
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace cudalab::mem {

inline constexpr int kWarpSize = 32;
inline constexpr int kSectorBytes = 32;
inline constexpr int kLineBytes = 128;
inline constexpr int kSectorsPerLine = kLineBytes / kSectorBytes;
inline constexpr int kBanks = 32;
inline constexpr int kBankBytes = 4;
inline constexpr int kMaxElementBytes = 16;

// ---------------------------------------------------------------------------------------------
// [SECTION] Requests
// ---------------------------------------------------------------------------------------------

struct WarpRequest {
  std::array<std::uint64_t, kWarpSize> address{};  // first byte each lane reads or writes
  std::uint32_t activeMask = 0xffffffffu;          // bit l: lane l takes part
  int elementBytes = 4;                            // 1..16

  bool active(int lane) const { return (activeMask >> lane) & 1u; }
  int activeLanes() const;
};

// Lane l at base + l * strideBytes, all lanes active.
WarpRequest stridedRequest(std::uint64_t base, std::uint64_t strideBytes, int elementBytes);
// 32 consecutive elements from `base`.
WarpRequest contiguousRequest(std::uint64_t base, int elementBytes);

// ---------------------------------------------------------------------------------------------
// [SECTION] Global memory
// ---------------------------------------------------------------------------------------------

struct GlobalAccess {
  std::vector<std::uint64_t> sectors;  // distinct sector numbers (address / 32), ascending
  std::vector<std::uint64_t> lines;    // distinct line numbers (address / 128), ascending
  // For each lane: the position in `lines` of the line holding its first byte (-1 when
  // inactive), and how many sectors its element spans (1, or 2 when it straddles a boundary).
  std::array<int, kWarpSize> laneLine{};
  std::array<int, kWarpSize> laneSectors{};
  std::int64_t bytesRequested = 0;  // distinct bytes the active lanes ask for

  int sectorCount() const { return static_cast<int>(sectors.size()); }
  int lineCount() const { return static_cast<int>(lines.size()); }
  std::int64_t bytesMoved() const { return std::int64_t{kSectorBytes} * sectorCount(); }
  // Bytes asked for over bytes moved: 1 for 32 consecutive floats, 1/8 when every lane reads a
  // different sector, 4/32 when all lanes read one float (the warp needs 4 bytes; a sector is
  // the least memory can move). 0 for a request with no active lane.
  double efficiency() const;
};

GlobalAccess analyzeGlobal(const WarpRequest& r);

// ---------------------------------------------------------------------------------------------
// [SECTION] Shared memory
// ---------------------------------------------------------------------------------------------
// A request of 4-byte or smaller elements is served in one phase of 32 lanes. Wider elements are
// split as the hardware splits them: 8-byte elements in two phases of 16 lanes, 16-byte ones in
// four phases of 8 lanes, so each phase asks for at most 128 bytes. Within a phase, each bank
// serves one word per pass: the number of passes is the largest count of distinct words any bank
// is asked for, and broadcast (lanes sharing a word) costs nothing extra.

struct SharedAccess {
  std::array<int, kWarpSize> laneBank{};  // bank of each lane's first word (-1 when inactive)
  std::array<int, kWarpSize> lanePass{};  // the pass of its phase that serves the lane's word
  std::array<int, kWarpSize> lanePhase{};
  // Per bank: distinct words asked for in the worst phase. The n of an n-way conflict.
  std::array<int, kBanks> bankWords{};
  // Per phase and bank: distinct words asked for (phases beyond `phases` stay 0).
  std::array<std::array<int, kBanks>, 4> phaseBankWords{};
  // Per lane: another lane of its phase reads one of its words too (served by broadcast).
  std::array<bool, kWarpSize> laneShares{};
  int phases = 1;          // 1, 2 or 4 (see above)
  int wavefronts = 0;      // passes summed over phases: what Nsight Compute counts per request
  int degree = 0;          // the worst bank's distinct words in one phase: 1 = no conflict
  bool broadcast = false;  // some lanes share a word (served together)

  bool conflictFree() const { return degree <= 1; }
};

SharedAccess analyzeShared(const WarpRequest& r);

}  // namespace cudalab::mem
