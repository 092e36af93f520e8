// The memory-access model checked against cases worked out by hand (global sectors and lines,
// shared-memory banks, phases and broadcast), and against brute-force references on random
// requests: sets of sectors and bytes for global memory, sets of words per bank and phase for
// shared memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "models/memory_access.hpp"

namespace cudalab::mem {
namespace {

// A request with only the lanes of `mask` active.
WarpRequest masked(WarpRequest r, std::uint32_t mask) {
  r.activeMask = mask;
  return r;
}

// A request of one active lane (lane 0) at `address`.
WarpRequest singleLane(std::uint64_t address, int elementBytes) {
  WarpRequest r;
  r.elementBytes = elementBytes;
  r.activeMask = 1u;
  r.address[0] = address;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

TEST(MemoryRequests, StridedAndContiguousAddresses) {
  const WarpRequest r = stridedRequest(100, 12, 4);
  EXPECT_EQ(r.elementBytes, 4);
  EXPECT_EQ(r.activeMask, 0xffffffffu);
  EXPECT_EQ(r.activeLanes(), 32);
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_EQ(r.address[l], 100u + 12u * std::uint64_t(l));

  const WarpRequest c = contiguousRequest(64, 8);
  EXPECT_EQ(c.elementBytes, 8);
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_EQ(c.address[l], 64u + 8u * std::uint64_t(l));
}

TEST(MemoryRequests, ActiveLanes) {
  WarpRequest r = masked(contiguousRequest(0, 4), 0x0000000fu);
  EXPECT_EQ(r.activeLanes(), 4);
  EXPECT_TRUE(r.active(0));
  EXPECT_TRUE(r.active(3));
  EXPECT_FALSE(r.active(4));
  EXPECT_FALSE(r.active(31));
  r.activeMask = 0x80000000u;
  EXPECT_EQ(r.activeLanes(), 1);
  EXPECT_TRUE(r.active(31));
  r.activeMask = 0;
  EXPECT_EQ(r.activeLanes(), 0);
}

// ---------------------------------------------------------------------------------------------
// Global memory: the cases the lesson teaches
// ---------------------------------------------------------------------------------------------

TEST(MemoryGlobal, ConsecutiveFloatsAreFourSectorsOneLine) {
  // Bytes 0..127: sectors 0..3, line 0. 128 bytes asked, 128 moved.
  const GlobalAccess g = analyzeGlobal(contiguousRequest(0, 4));
  EXPECT_EQ(g.sectorCount(), 4);
  EXPECT_EQ(g.sectors, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(g.lineCount(), 1);
  EXPECT_EQ(g.lines, (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(g.bytesRequested, 128);
  EXPECT_EQ(g.bytesMoved(), 128);
  EXPECT_DOUBLE_EQ(g.efficiency(), 1.0);
}

TEST(MemoryGlobal, StrideTwoFloatsIsEightSectors) {
  // Lane l at 8l: bytes 0..251, sectors 0..7 (251 / 32 = 7), lines 0 and 1. 128 of 256 bytes.
  const GlobalAccess g = analyzeGlobal(stridedRequest(0, 2 * 4, 4));
  EXPECT_EQ(g.sectorCount(), 8);
  EXPECT_EQ(g.lineCount(), 2);
  EXPECT_EQ(g.bytesRequested, 128);
  EXPECT_DOUBLE_EQ(g.efficiency(), 0.5);
}

TEST(MemoryGlobal, StrideEightOrMoreFloatsIsOneSectorPerLane) {
  // Stride 8 floats = 32 bytes: each lane starts a sector of its own. Wider strides likewise.
  for (std::uint64_t stride : {8u, 16u, 32u, 1000u}) {
    SCOPED_TRACE("stride " + std::to_string(stride) + " floats");
    const GlobalAccess g = analyzeGlobal(stridedRequest(0, stride * 4, 4));
    EXPECT_EQ(g.sectorCount(), 32);
    EXPECT_EQ(g.bytesRequested, 128);
    EXPECT_DOUBLE_EQ(g.efficiency(), 1.0 / 8.0);
  }
  // Stride 8 floats: 4 lanes per 128-byte line, 8 lines. Stride 32 floats: a line per lane.
  EXPECT_EQ(analyzeGlobal(stridedRequest(0, 8 * 4, 4)).lineCount(), 8);
  EXPECT_EQ(analyzeGlobal(stridedRequest(0, 32 * 4, 4)).lineCount(), 32);
}

TEST(MemoryGlobal, ColumnOfA2DArrayIsThirtyTwoSectors) {
  // float a[..][1000], lane l reads a[l][7]: lanes are 4000 bytes apart.
  const GlobalAccess g = analyzeGlobal(stridedRequest(7 * 4, 1000 * 4, 4));
  EXPECT_EQ(g.sectorCount(), 32);
  EXPECT_EQ(g.lineCount(), 32);
  EXPECT_EQ(g.bytesMoved(), 1024);
  EXPECT_DOUBLE_EQ(g.efficiency(), 128.0 / 1024.0);
}

TEST(MemoryGlobal, AllLanesReadingOneWordIsOneSector) {
  // Stride 0: 4 distinct bytes in one sector; a sector is the least memory moves.
  const GlobalAccess g = analyzeGlobal(stridedRequest(36, 0, 4));
  EXPECT_EQ(g.sectorCount(), 1);
  EXPECT_EQ(g.sectors, (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(g.lineCount(), 1);
  EXPECT_EQ(g.bytesRequested, 4);
  EXPECT_DOUBLE_EQ(g.efficiency(), 4.0 / 32.0);
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(g.laneLine[l], 0);
    EXPECT_EQ(g.laneSectors[l], 1);
  }
}

// ---------------------------------------------------------------------------------------------
// Global memory: worked cases
// ---------------------------------------------------------------------------------------------

TEST(MemoryGlobal, MisalignedContiguousReadIsFiveSectorsTwoLines) {
  // Offset 1 float: bytes 4..131. Sectors 4/32 = 0 .. 131/32 = 4: five. Lines 0 and 1
  // (131/128 = 1). 128 bytes asked, 160 moved: 0.8.
  const GlobalAccess g = analyzeGlobal(contiguousRequest(4, 4));
  EXPECT_EQ(g.sectors, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(g.lines, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(g.bytesRequested, 128);
  EXPECT_DOUBLE_EQ(g.efficiency(), 0.8);
  // Lanes 0..30 start at 4..124 (line 0); lane 31 starts at 128 (line 1).
  for (int l = 0; l < 31; ++l)
    EXPECT_EQ(g.laneLine[l], 0) << "lane " << l;
  EXPECT_EQ(g.laneLine[31], 1);
}

TEST(MemoryGlobal, OneByteElements) {
  // 32 consecutive chars: bytes 0..31, exactly one sector.
  const GlobalAccess g = analyzeGlobal(contiguousRequest(0, 1));
  EXPECT_EQ(g.sectorCount(), 1);
  EXPECT_EQ(g.lineCount(), 1);
  EXPECT_EQ(g.bytesRequested, 32);
  EXPECT_DOUBLE_EQ(g.efficiency(), 1.0);
  // Starting at byte 16: bytes 16..47, sectors 0 and 1, half of each used.
  const GlobalAccess h = analyzeGlobal(contiguousRequest(16, 1));
  EXPECT_EQ(h.sectorCount(), 2);
  EXPECT_DOUBLE_EQ(h.efficiency(), 0.5);
}

TEST(MemoryGlobal, TwoByteElements) {
  // 32 consecutive halves: bytes 0..63, sectors 0 and 1.
  const GlobalAccess g = analyzeGlobal(contiguousRequest(0, 2));
  EXPECT_EQ(g.sectorCount(), 2);
  EXPECT_EQ(g.lineCount(), 1);
  EXPECT_EQ(g.bytesRequested, 64);
  EXPECT_DOUBLE_EQ(g.efficiency(), 1.0);
}

TEST(MemoryGlobal, EightByteElements) {
  // 32 consecutive doubles: bytes 0..255, sectors 0..7, lines 0 and 1. Lanes 0..15 in line 0.
  const GlobalAccess g = analyzeGlobal(contiguousRequest(0, 8));
  EXPECT_EQ(g.sectorCount(), 8);
  EXPECT_EQ(g.lineCount(), 2);
  EXPECT_EQ(g.bytesRequested, 256);
  EXPECT_DOUBLE_EQ(g.efficiency(), 1.0);
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(g.laneLine[l], l < 16 ? 0 : 1) << "lane " << l;
    EXPECT_EQ(g.laneSectors[l], 1) << "lane " << l;
  }
}

TEST(MemoryGlobal, SixteenByteElements) {
  // 32 consecutive float4: bytes 0..511, sectors 0..15, lines 0..3 (8 lanes per line).
  const GlobalAccess g = analyzeGlobal(contiguousRequest(0, 16));
  EXPECT_EQ(g.sectorCount(), 16);
  EXPECT_EQ(g.lineCount(), 4);
  EXPECT_EQ(g.bytesRequested, 512);
  EXPECT_DOUBLE_EQ(g.efficiency(), 1.0);
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_EQ(g.laneLine[l], l / 8) << "lane " << l;
}

TEST(MemoryGlobal, ElementStraddlingASectorBoundary) {
  // A double at byte 28: bytes 28..35, sectors 0 (28/32) and 1 (35/32), one line.
  const GlobalAccess g = analyzeGlobal(singleLane(28, 8));
  EXPECT_EQ(g.laneSectors[0], 2);
  EXPECT_EQ(g.sectors, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(g.lineCount(), 1);
  EXPECT_EQ(g.bytesRequested, 8);
  EXPECT_DOUBLE_EQ(g.efficiency(), 8.0 / 64.0);
  // A float4 at byte 120: bytes 120..135 straddle sectors 3/4 and lines 0/1. The lane's line is
  // the one holding its first byte: line 0, position 0.
  const GlobalAccess h = analyzeGlobal(singleLane(120, 16));
  EXPECT_EQ(h.laneSectors[0], 2);
  EXPECT_EQ(h.sectors, (std::vector<std::uint64_t>{3, 4}));
  EXPECT_EQ(h.lines, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(h.laneLine[0], 0);
}

TEST(MemoryGlobal, InactiveLanesAreNotCounted) {
  // Only lane 0 of a column read: one 4-byte element, one sector.
  const GlobalAccess g = analyzeGlobal(masked(stridedRequest(0, 4000, 4), 1u));
  EXPECT_EQ(g.sectorCount(), 1);
  EXPECT_EQ(g.lineCount(), 1);
  EXPECT_EQ(g.bytesRequested, 4);
  EXPECT_EQ(g.laneLine[0], 0);
  EXPECT_EQ(g.laneSectors[0], 1);
  for (int l = 1; l < kWarpSize; ++l) {
    EXPECT_EQ(g.laneLine[l], -1) << "lane " << l;
    EXPECT_EQ(g.laneSectors[l], 0) << "lane " << l;
  }
  // The upper 16 lanes of a consecutive-float read: bytes 64..127, sectors 2 and 3.
  const GlobalAccess h = analyzeGlobal(masked(contiguousRequest(0, 4), 0xffff0000u));
  EXPECT_EQ(h.sectors, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(h.bytesRequested, 64);
  EXPECT_DOUBLE_EQ(h.efficiency(), 1.0);
}

TEST(MemoryGlobal, OverlappingLanesCountDistinctBytes) {
  // Floats at a stride of 2 bytes: lane l covers bytes 2l..2l+3, together bytes 0..65 = 66
  // distinct bytes (not 128). Sectors 0, 1, 2 (65/32 = 2): 96 bytes moved, 66/96 = 0.6875.
  const GlobalAccess g = analyzeGlobal(stridedRequest(0, 2, 4));
  EXPECT_EQ(g.bytesRequested, 66);
  EXPECT_EQ(g.sectorCount(), 3);
  EXPECT_DOUBLE_EQ(g.efficiency(), 66.0 / 96.0);
  // Two groups of 16 lanes each reading one float, 64 bytes apart: 8 distinct bytes, 2 sectors.
  WarpRequest r;
  for (int l = 0; l < kWarpSize; ++l)
    r.address[l] = l < 16 ? 0 : 64;
  const GlobalAccess h = analyzeGlobal(r);
  EXPECT_EQ(h.bytesRequested, 8);
  EXPECT_EQ(h.sectors, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_DOUBLE_EQ(h.efficiency(), 8.0 / 64.0);
}

TEST(MemoryGlobal, LaneLinesOfAReadAcrossTwoLines) {
  // Consecutive floats from byte 64: bytes 64..191, sectors 2..5, lines 0 (64..127) and 1
  // (128..191). Lanes 0..15 start in line 0, lanes 16..31 in line 1.
  const GlobalAccess g = analyzeGlobal(contiguousRequest(64, 4));
  EXPECT_EQ(g.sectors, (std::vector<std::uint64_t>{2, 3, 4, 5}));
  EXPECT_EQ(g.lines, (std::vector<std::uint64_t>{0, 1}));
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(g.laneLine[l], l < 16 ? 0 : 1) << "lane " << l;
    EXPECT_EQ(g.laneSectors[l], 1) << "lane " << l;
  }
  // laneLine is a position in `lines`, not a line number: lines 10 and 20 are positions 0, 1.
  WarpRequest r;
  for (int l = 0; l < kWarpSize; ++l)
    r.address[l] = (l % 2 ? 20 : 10) * 128u;
  const GlobalAccess h = analyzeGlobal(r);
  EXPECT_EQ(h.lines, (std::vector<std::uint64_t>{10, 20}));
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_EQ(h.laneLine[l], l % 2) << "lane " << l;
}

TEST(MemoryGlobal, EmptyRequest) {
  const GlobalAccess g = analyzeGlobal(masked(contiguousRequest(0, 4), 0));
  EXPECT_EQ(g.sectorCount(), 0);
  EXPECT_EQ(g.lineCount(), 0);
  EXPECT_EQ(g.bytesRequested, 0);
  EXPECT_EQ(g.bytesMoved(), 0);
  EXPECT_EQ(g.efficiency(), 0.0);
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(g.laneLine[l], -1);
    EXPECT_EQ(g.laneSectors[l], 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Shared memory: the cases the lesson teaches
// ---------------------------------------------------------------------------------------------

TEST(MemoryShared, StrideOneIsConflictFree) {
  // Lane l reads word l: bank l, one word per bank.
  const SharedAccess s = analyzeShared(contiguousRequest(0, 4));
  EXPECT_EQ(s.phases, 1);
  EXPECT_EQ(s.degree, 1);
  EXPECT_EQ(s.wavefronts, 1);
  EXPECT_TRUE(s.conflictFree());
  EXPECT_FALSE(s.broadcast);
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(s.laneBank[l], l);
    EXPECT_EQ(s.lanePass[l], 0);
    EXPECT_EQ(s.lanePhase[l], 0);
  }
  for (int b = 0; b < kBanks; ++b)
    EXPECT_EQ(s.bankWords[b], 1);
}

TEST(MemoryShared, StrideTwoIsTwoWay) {
  // Lane l reads word 2l, bank 2l mod 32: lanes 0..15 take words 0..30 (even banks, pass 0),
  // lanes 16..31 words 32..62 in the same banks (pass 1). Odd banks are idle.
  const SharedAccess s = analyzeShared(stridedRequest(0, 2 * 4, 4));
  EXPECT_EQ(s.degree, 2);
  EXPECT_EQ(s.wavefronts, 2);
  EXPECT_FALSE(s.conflictFree());
  EXPECT_FALSE(s.broadcast);
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(s.laneBank[l], (2 * l) % 32) << "lane " << l;
    EXPECT_EQ(s.lanePass[l], l / 16) << "lane " << l;
  }
  for (int b = 0; b < kBanks; ++b)
    EXPECT_EQ(s.bankWords[b], b % 2 ? 0 : 2) << "bank " << b;
}

TEST(MemoryShared, StrideThirtyTwoIsThirtyTwoWay) {
  // Lane l reads word 32l: all in bank 0, 32 distinct words, lane l served in pass l.
  const SharedAccess s = analyzeShared(stridedRequest(0, 32 * 4, 4));
  EXPECT_EQ(s.degree, 32);
  EXPECT_EQ(s.wavefronts, 32);
  EXPECT_EQ(s.bankWords[0], 32);
  for (int b = 1; b < kBanks; ++b)
    EXPECT_EQ(s.bankWords[b], 0);
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(s.laneBank[l], 0);
    EXPECT_EQ(s.lanePass[l], l);
  }
}

TEST(MemoryShared, TileColumnReadIsThirtyTwoWayUnlessPadded) {
  for (int c : {0, 5, 31}) {
    SCOPED_TRACE("column " + std::to_string(c));
    // float tile[32][32]; lane l reads tile[l][c]: word 32l + c, bank c for every lane.
    WarpRequest r;
    for (int l = 0; l < kWarpSize; ++l)
      r.address[l] = std::uint64_t(l * 32 + c) * 4;
    const SharedAccess s = analyzeShared(r);
    EXPECT_EQ(s.degree, 32);
    EXPECT_EQ(s.bankWords[c], 32);
    // float tile[32][33]: word 33l + c, bank (l + c) mod 32: a different bank per lane.
    WarpRequest p;
    for (int l = 0; l < kWarpSize; ++l)
      p.address[l] = std::uint64_t(l * 33 + c) * 4;
    const SharedAccess t = analyzeShared(p);
    EXPECT_EQ(t.degree, 1);
    EXPECT_EQ(t.wavefronts, 1);
    for (int l = 0; l < kWarpSize; ++l)
      EXPECT_EQ(t.laneBank[l], (l + c) % 32);
  }
}

TEST(MemoryShared, AllLanesReadingOneWordIsABroadcast) {
  const SharedAccess s = analyzeShared(stridedRequest(12, 0, 4));
  EXPECT_EQ(s.degree, 1);
  EXPECT_EQ(s.wavefronts, 1);
  EXPECT_TRUE(s.broadcast);
  EXPECT_TRUE(s.conflictFree());
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(s.laneBank[l], 3);
    EXPECT_EQ(s.lanePass[l], 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Shared memory: worked cases
// ---------------------------------------------------------------------------------------------

TEST(MemoryShared, ConsecutiveDoublesTakeTwoPhases) {
  // 8-byte elements: two phases of 16 lanes. Phase 0: lanes 0..15, bytes 0..127, words 0..31,
  // one per bank. Phase 1: words 32..63, one per bank. 2 wavefronts, no conflict.
  const SharedAccess s = analyzeShared(contiguousRequest(0, 8));
  EXPECT_EQ(s.phases, 2);
  EXPECT_EQ(s.wavefronts, 2);
  EXPECT_EQ(s.degree, 1);
  EXPECT_FALSE(s.broadcast);
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(s.lanePhase[l], l / 16) << "lane " << l;
    EXPECT_EQ(s.laneBank[l], (2 * l) % 32) << "lane " << l;
    EXPECT_EQ(s.lanePass[l], 0) << "lane " << l;
  }
}

TEST(MemoryShared, ConsecutiveFloat4TakeFourPhases) {
  // 16-byte elements: four phases of 8 lanes, each phase 128 bytes = 32 words, one per bank.
  const SharedAccess s = analyzeShared(contiguousRequest(0, 16));
  EXPECT_EQ(s.phases, 4);
  EXPECT_EQ(s.wavefronts, 4);
  EXPECT_EQ(s.degree, 1);
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(s.lanePhase[l], l / 8) << "lane " << l;
    EXPECT_EQ(s.laneBank[l], (4 * l) % 32) << "lane " << l;
  }
}

TEST(MemoryShared, DoublesAtStrideTwoAreTwoWay) {
  // Lane l at 16l bytes, 8 bytes each: words 4l and 4l+1. Phase 0 (lanes 0..15): lanes 0..7 take
  // words 0,1, 4,5, ..., 28,29 (banks 0,1, 4,5, ..., 28,29); lanes 8..15 take words 32..61, the
  // same banks again. Each used bank: 2 distinct words -> 2 passes. Phase 1 (lanes 16..31, words
  // 64..125) likewise. Degree 2, wavefronts 2 + 2 = 4.
  const SharedAccess s = analyzeShared(stridedRequest(0, 16, 8));
  EXPECT_EQ(s.phases, 2);
  EXPECT_EQ(s.degree, 2);
  EXPECT_EQ(s.wavefronts, 4);
  EXPECT_FALSE(s.broadcast);
  for (int b = 0; b < kBanks; ++b)
    EXPECT_EQ(s.bankWords[b], b % 4 < 2 ? 2 : 0) << "bank " << b;
  for (int l = 0; l < kWarpSize; ++l) {
    EXPECT_EQ(s.laneBank[l], (4 * l) % 32) << "lane " << l;
    EXPECT_EQ(s.lanePass[l], (l % 16) / 8) << "lane " << l;
    EXPECT_EQ(s.lanePhase[l], l / 16) << "lane " << l;
  }
}

TEST(MemoryShared, DoublesAtStrideSixteenAreSixteenWay) {
  // Lane l at 128l bytes: words 32l and 32l+1, banks 0 and 1 for every lane. 16 lanes per
  // phase: 16 distinct words in bank 0 (and in bank 1). Degree 16, wavefronts 32.
  const SharedAccess s = analyzeShared(stridedRequest(0, 128, 8));
  EXPECT_EQ(s.degree, 16);
  EXPECT_EQ(s.wavefronts, 32);
  EXPECT_EQ(s.bankWords[0], 16);
  EXPECT_EQ(s.bankWords[1], 16);
  EXPECT_EQ(s.bankWords[2], 0);
}

TEST(MemoryShared, SubWordElementsShareWords) {
  // 32 consecutive chars: bytes 0..31, words 0..7, four lanes per word. One pass, broadcast.
  const SharedAccess c = analyzeShared(contiguousRequest(0, 1));
  EXPECT_EQ(c.phases, 1);
  EXPECT_EQ(c.degree, 1);
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_TRUE(c.broadcast);
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_EQ(c.laneBank[l], l / 4) << "lane " << l;
  // 32 consecutive halves: words 0..15, two lanes per word.
  const SharedAccess h = analyzeShared(contiguousRequest(0, 2));
  EXPECT_EQ(h.degree, 1);
  EXPECT_TRUE(h.broadcast);
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_EQ(h.laneBank[l], l / 2) << "lane " << l;
  // Chars at a stride of 128 bytes: word 32l, all in bank 0: 32-way even for 1-byte elements.
  EXPECT_EQ(analyzeShared(stridedRequest(0, 128, 1)).degree, 32);
}

TEST(MemoryShared, InactiveLanesAreNotCounted) {
  // A 32-way column read with only lanes 0 and 1 active: 2 words in bank 0.
  const SharedAccess s = analyzeShared(masked(stridedRequest(0, 128, 4), 0x3u));
  EXPECT_EQ(s.degree, 2);
  EXPECT_EQ(s.wavefronts, 2);
  EXPECT_EQ(s.laneBank[0], 0);
  EXPECT_EQ(s.laneBank[1], 0);
  for (int l = 2; l < kWarpSize; ++l)
    EXPECT_EQ(s.laneBank[l], -1) << "lane " << l;
  // Doubles with phase 1's lanes all inactive: phase 1 costs nothing.
  const SharedAccess d = analyzeShared(masked(contiguousRequest(0, 8), 0x0000ffffu));
  EXPECT_EQ(d.phases, 2);
  EXPECT_EQ(d.wavefronts, 1);
  EXPECT_EQ(d.degree, 1);
}

TEST(MemoryShared, EmptyRequest) {
  const SharedAccess s = analyzeShared(masked(contiguousRequest(0, 4), 0));
  EXPECT_EQ(s.degree, 0);
  EXPECT_EQ(s.wavefronts, 0);
  EXPECT_FALSE(s.broadcast);
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_EQ(s.laneBank[l], -1);
  for (int b = 0; b < kBanks; ++b)
    EXPECT_EQ(s.bankWords[b], 0);
}

// ---------------------------------------------------------------------------------------------
// Random requests against brute-force references
// ---------------------------------------------------------------------------------------------

constexpr int kSizes[] = {1, 2, 4, 8, 16};

// A random request: consecutive-ish (base + stride), clustered (lanes overlap) or scattered;
// sometimes with a random active mask. Addresses are multiples of `align`.
WarpRequest randomRequest(std::mt19937& gen, int size, std::uint64_t align) {
  std::uniform_int_distribution<int> pick(0, 3);
  std::uniform_int_distribution<std::uint64_t> base(0, 4096), stride(0, 80), near(0, 600),
      far(0, std::uint64_t{1} << 24);
  std::uniform_int_distribution<std::uint32_t> mask;
  WarpRequest r;
  r.elementBytes = size;
  const int mode = pick(gen);
  const std::uint64_t b = base(gen), s = stride(gen);
  for (int l = 0; l < kWarpSize; ++l) {
    std::uint64_t a = mode <= 1 ? b + s * std::uint64_t(l) : mode == 2 ? near(gen) : far(gen);
    r.address[l] = a / align * align;
  }
  if (pick(gen) == 0) r.activeMask = mask(gen);
  return r;
}

TEST(MemoryRandom, GlobalMatchesBruteForce) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> sizeIndex(0, 4);
  for (int trial = 0; trial < 3000; ++trial) {
    const int size = kSizes[sizeIndex(gen)];
    // Global loads need no alignment in the model: half the trials are misaligned.
    const WarpRequest r = randomRequest(gen, size, trial % 2 ? std::uint64_t(size) : 1);
    std::set<std::uint64_t> sectors, lines, bytes;
    for (int l = 0; l < kWarpSize; ++l) {
      if (!r.active(l)) continue;
      for (std::uint64_t a = r.address[l]; a < r.address[l] + std::uint64_t(size); ++a) {
        bytes.insert(a);
        sectors.insert(a / kSectorBytes);
        lines.insert(a / kLineBytes);
      }
    }
    const GlobalAccess g = analyzeGlobal(r);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", element " + std::to_string(size));
    ASSERT_EQ(g.sectorCount(), int(sectors.size()));
    ASSERT_EQ(g.sectors, std::vector<std::uint64_t>(sectors.begin(), sectors.end()));
    ASSERT_EQ(g.lines, std::vector<std::uint64_t>(lines.begin(), lines.end()));
    ASSERT_EQ(g.bytesRequested, std::int64_t(bytes.size()));
    if (sectors.empty())
      ASSERT_EQ(g.efficiency(), 0.0);
    else
      ASSERT_DOUBLE_EQ(g.efficiency(), double(bytes.size()) / (32.0 * double(sectors.size())));
    for (int l = 0; l < kWarpSize; ++l) {
      if (!r.active(l)) {
        ASSERT_EQ(g.laneLine[l], -1);
        ASSERT_EQ(g.laneSectors[l], 0);
        continue;
      }
      const std::uint64_t first = r.address[l], last = first + std::uint64_t(size) - 1;
      ASSERT_EQ(g.laneSectors[l], int(last / kSectorBytes - first / kSectorBytes + 1));
      ASSERT_EQ(g.laneLine[l], int(std::distance(lines.begin(), lines.find(first / kLineBytes))));
    }
  }
}

TEST(MemoryRandom, SharedMatchesBruteForce) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> sizeIndex(0, 4);
  for (int trial = 0; trial < 3000; ++trial) {
    const int size = kSizes[sizeIndex(gen)];
    // Shared accesses are naturally aligned on the hardware.
    const WarpRequest r = randomRequest(gen, size, std::uint64_t(size));
    const int phases = size <= 4 ? 1 : size == 8 ? 2 : 4;
    const int lanesPerPhase = kWarpSize / phases;
    int degree = 0, wavefronts = 0;
    bool broadcast = false;
    for (int phase = 0; phase < phases; ++phase) {
      std::array<std::set<std::uint64_t>, kBanks> words;
      std::map<std::uint64_t, int> lanesPerWord;
      for (int l = phase * lanesPerPhase; l < (phase + 1) * lanesPerPhase; ++l) {
        if (!r.active(l)) continue;
        for (std::uint64_t a = r.address[l]; a < r.address[l] + std::uint64_t(size); ++a)
          words[a / kBankBytes % kBanks].insert(a / kBankBytes);
        ++lanesPerWord[r.address[l] / kBankBytes];
      }
      std::size_t passes = 0;
      for (const auto& w : words)
        passes = std::max(passes, w.size());
      degree = std::max(degree, int(passes));
      wavefronts += int(passes);
      for (const auto& [word, lanes] : lanesPerWord)
        broadcast = broadcast || lanes > 1;
    }
    const SharedAccess s = analyzeShared(r);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", element " + std::to_string(size));
    ASSERT_EQ(s.phases, phases);
    ASSERT_EQ(s.degree, degree);
    ASSERT_EQ(s.wavefronts, wavefronts);
    ASSERT_EQ(s.broadcast, broadcast);
    ASSERT_EQ(*std::max_element(s.bankWords.begin(), s.bankWords.end()), degree);
    for (int l = 0; l < kWarpSize; ++l) {
      if (!r.active(l)) {
        ASSERT_EQ(s.laneBank[l], -1);
        continue;
      }
      ASSERT_EQ(s.laneBank[l], int(r.address[l] / kBankBytes % kBanks));
      ASSERT_EQ(s.lanePhase[l], l / lanesPerPhase);
      ASSERT_GE(s.lanePass[l], 0);
      ASSERT_LT(s.lanePass[l], degree);
      // Lanes of one phase and bank share a pass exactly when they share the word.
      for (int m = l + 1; m < kWarpSize; ++m) {
        if (!r.active(m) || m / lanesPerPhase != l / lanesPerPhase) continue;
        if (s.laneBank[m] != s.laneBank[l]) continue;
        const bool sameWord = r.address[m] / kBankBytes == r.address[l] / kBankBytes;
        ASSERT_EQ(s.lanePass[m] == s.lanePass[l], sameWord) << "lanes " << l << ", " << m;
      }
    }
  }
}

}  // namespace
}  // namespace cudalab::mem

namespace cudalab::mem {
namespace {

// The per-phase bank counts and the broadcast flags the lesson's bank picture draws from.
TEST(MemorySharedPicture, PerPhaseBankWordsAndSharedLanes) {
  // Stride 2 floats: lanes l and l + 16 both use bank 2l mod 32 with different words.
  const SharedAccess s2 = analyzeShared(stridedRequest(0, 8, 4));
  EXPECT_EQ(s2.phaseBankWords[0][0], 2);
  EXPECT_EQ(s2.phaseBankWords[0][1], 0);
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_FALSE(s2.laneShares[size_t(l)]) << l;
  // One word for everybody: one word in bank 0, and every lane shares it.
  const SharedAccess one = analyzeShared(stridedRequest(64, 0, 4));
  EXPECT_EQ(one.phaseBankWords[0][16], 1);
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_TRUE(one.laneShares[size_t(l)]) << l;
  // 32 consecutive doubles: two phases, each touching every bank once.
  const SharedAccess d = analyzeShared(contiguousRequest(0, 8));
  for (int b = 0; b < kBanks; ++b) {
    EXPECT_EQ(d.phaseBankWords[0][size_t(b)], 1) << b;
    EXPECT_EQ(d.phaseBankWords[1][size_t(b)], 1) << b;
    EXPECT_EQ(d.phaseBankWords[2][size_t(b)], 0) << b;
  }
  // Bytes: lanes 4k..4k+3 share word k.
  const SharedAccess bytes = analyzeShared(contiguousRequest(0, 1));
  for (int l = 0; l < kWarpSize; ++l)
    EXPECT_TRUE(bytes.laneShares[size_t(l)]) << l;
}

}  // namespace
}  // namespace cudalab::mem
