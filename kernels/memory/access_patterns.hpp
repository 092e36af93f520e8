// The memory lesson's kernels as the access model sees them: for every kernel the lesson runs,
// which address each thread of each warp reads or writes at each memory instruction, so the model
// (models/memory_access.hpp) can count sectors and bank conflicts for one warp, for every warp of
// the kernel (the heat map) and in total (compared with Nsight Compute's counters).
//
// Pure C++. Every kernel here has a CUDA twin in memory.cu with the same launch shape and the same
// index arithmetic; tests/gpu/memory checks the twins compute what they should, and
// `cudalab bench memory --action model-check` with tools/ncu_memory_check.py compares the counts.
//
// [SECTION] Kernels      the table of modelled kernels and their memory instructions
// [SECTION] Patterns     what the learner picks: one instruction of one kernel, with a name
// [SECTION] Parameters   sizes, stride, offset, element size, padding; validation
// [SECTION] Evaluation   one warp's request; the whole kernel's map and totals
//
//   PatternParams p;                       // defaults
//   p.stride = 2;
//   WarpRequest r = warpRequest(PatternId::Strided, p, /*warp*/ 0, /*iteration*/ 0);
//   GlobalAccess g = analyzeGlobal(r);     // 8 sectors
//   KernelMap m = kernelMap(PatternId::Strided, p);   // sectors per request of every warp
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/params.hpp"
#include "common/status.hpp"
#include "models/memory_access.hpp"

namespace cudalab::memory {

// ---------------------------------------------------------------------------------------------
// [SECTION] Kernels
// ---------------------------------------------------------------------------------------------

enum class Space { Global, Shared };
enum class Op { Load, Store };

enum class KernelId {
  StridedCopy,      // out[i*s + o] = in[i*s + o]
  TraverseRows,     // out[r][c] = in[r][c], lanes along a row
  TraverseColumns,  // the same, lanes down a column
  ReadAoS,          // out[i] = particles[i].x, an array of structures
  ReadSoA,          // out[i] = x[i], a structure of arrays
  TransposeNaive,   // the course's B[x, y] = A[y, x]
  TransposeTiled,   // through a 32x32 shared tile (padded or not, 1 or 4 elements per thread)
  CopyTiled,        // the copy ceiling, shaped like the tiled transpose
  CopyThroughTile,  // through a shared tile read by rows
  MatmulCourse,     // C = A B, one thread per C[i][j], thread x walking rows (i)
  MatmulSwapped,    // the same with thread x walking columns (j)
  SharedStrided,    // one warp reading shared word l * s
};

struct Instruction {
  const char* name;  // "load A", "store B", "shared load (tile)"
  Space space;
  Op op;
};

struct KernelInfo {
  KernelId id;
  const char* name;  // the CUDA kernel's name, as Nsight Compute lists it
  const char* code;  // the line of CUDA that matters, for the learner
  std::vector<Instruction> instructions;
};

std::span<const KernelInfo> kernelInfos();
const KernelInfo& kernelInfo(KernelId id);

// ---------------------------------------------------------------------------------------------
// [SECTION] Patterns
// ---------------------------------------------------------------------------------------------

enum class PatternId {
  Strided,
  RowWise,
  ColumnWise,
  AoS,
  SoA,
  TransposeRead,
  TransposeWrite,
  MatmulA,
  MatmulB,
  MatmulSwappedA,
  MatmulSwappedB,
  TileRows,
  TileColumns,
  SharedStrided,
};

struct PatternInfo {
  PatternId id;
  const char* key;    // stable name: "strided", "tile-columns": command line, exports, tests
  const char* label;  // what the UI lists
  KernelId kernel;
  int instruction;  // index into the kernel's instructions
  const char* help;
};

std::span<const PatternInfo> patterns();
const PatternInfo& patternInfo(PatternId id);
const PatternInfo* findPattern(const std::string& key);
Space patternSpace(PatternId id);

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters
// ---------------------------------------------------------------------------------------------

inline constexpr ParamSpec kStride{.id = "stride",
                                   .label = "Stride",
                                   .min = 0,
                                   .max = 32,
                                   .defaultValue = 1,
                                   .unit = "elements",
                                   .help =
                                       "Lane l reads element l x stride (plus the offset). 0 makes "
                                       "every lane read the same element."};
inline constexpr ParamSpec kOffset{
    .id = "offset",
    .label = "Offset",
    .min = 0,
    .max = 32,
    .defaultValue = 0,
    .unit = "elements",
    .help =
        "Where the warp starts, in elements past a 256-byte aligned "
        "allocation. A non-zero offset misaligns a contiguous read."};
inline constexpr ParamSpec kElementBytes{
    .id = "element_bytes",
    .label = "Element size",
    .min = 1,
    .max = 16,
    .defaultValue = 4,
    .unit = "bytes",
    .help =
        "Bytes each lane reads: 1 (char), 2 (half), 4 (float), "
        "8 (double) or 16 (float4)."};
inline constexpr ParamSpec kRows{.id = "rows",
                                 .label = "Rows",
                                 .min = 1,
                                 .max = 1024,
                                 .defaultValue = 100,
                                 .help =
                                     "Rows of the 2D array (and of A in the transpose and the "
                                     "matrix product)."};
inline constexpr ParamSpec kCols{.id = "cols",
                                 .label = "Columns",
                                 .min = 1,
                                 .max = 1024,
                                 .defaultValue = 100,
                                 .help =
                                     "Columns of the 2D array (and of A in the transpose; columns "
                                     "of B in the matrix product)."};
inline constexpr ParamSpec kInner{.id = "inner",
                                  .label = "Inner size K",
                                  .min = 1,
                                  .max = 256,
                                  .defaultValue = 64,
                                  .help =
                                      "The matrix product's inner dimension: A is rows x K, B is K "
                                      "x columns."};
inline constexpr ParamSpec kCount{.id = "count",
                                  .label = "Elements",
                                  .min = 32,
                                  .max = 1 << 20,
                                  .defaultValue = 8192,
                                  .help =
                                      "Threads of the one-dimensional kernels (strided copy, "
                                      "structures): one element each.",
                                  .logScale = true};
inline constexpr ParamSpec kStructFloats{.id = "struct_floats",
                                         .label = "Floats per structure",
                                         .min = 2,
                                         .max = 8,
                                         .defaultValue = 3,
                                         .help =
                                             "Size of one structure in the array of structures: 3 "
                                             "for a particle's x, y, z."};

inline constexpr int kTile = 32;  // the transpose's shared-memory tile is kTile x kTile

struct PatternParams {
  int stride = 1;
  int offset = 0;
  int elementBytes = 4;  // strided copy and shared strided only; the others move floats
  int rows = 100, cols = 100, inner = 64;
  int count = 8192;
  int structFloats = 3;
  bool padded = false;        // shared tile of kTile x (kTile + 1)
  int elementsPerThread = 4;  // tiled kernels: 1 (a 32x32 block) or 4 (a 32x8 block)
  // The naive matmuls' block shape: 32 x 8 here (a warp is one row of the block), 16 x 16 as the
  // course launches it (the matmul lesson's naive steps).
  int matmulBlockX = 32, matmulBlockY = 8;

  bool operator==(const PatternParams&) const = default;
};

// Out-of-range values, or an element size other than 1, 2, 4, 8 and 16, as a sentence.
Status validate(const PatternParams& p);

// ---------------------------------------------------------------------------------------------
// [SECTION] Evaluation
// ---------------------------------------------------------------------------------------------

struct LaunchShape {
  int gridX = 1, gridY = 1;
  int blockX = 1, blockY = 1;
  int iterations = 1;  // times each thread runs the modelled instruction (loop trips)
  int warpsPerBlock() const { return (blockX * blockY + mem::kWarpSize - 1) / mem::kWarpSize; }
  long long warps() const { return 1LL * gridX * gridY * warpsPerBlock(); }
};

LaunchShape launchShape(KernelId k, const PatternParams& p);

// The request warp `warp` (counted over the whole grid, block by block) makes at instruction
// `instruction` in loop trip `iteration`. Lanes that skip it (out of bounds) are inactive; a
// warp with no active lane makes no request (activeMask 0).
mem::WarpRequest warpRequest(KernelId k, int instruction, const PatternParams& p, long long warp,
                             int iteration);
mem::WarpRequest warpRequest(PatternId id, const PatternParams& p, long long warp, int iteration);

// What one instruction costs over the whole kernel.
struct InstructionTotals {
  long long requests = 0;    // warp-level instructions that ran (at least one lane active)
  long long sectors = 0;     // global: sectors moved
  long long wavefronts = 0;  // shared: passes
  long long bytesRequested = 0;
  double sectorsPerRequest() const { return requests ? double(sectors) / double(requests) : 0; }
  double wavefrontsPerRequest() const {
    return requests ? double(wavefronts) / double(requests) : 0;
  }
  double efficiency() const {
    return sectors ? double(bytesRequested) / (32.0 * double(sectors)) : 0;
  }
};

// Sectors (global) or wavefronts (shared) per request of every warp, laid out like the data for
// 2D kernels (one cell per warp: columns = blocks in x, rows = warp rows) and in rows of 32 for
// 1D kernels. Cells of warps that never ran the instruction hold NaN.
struct KernelMap {
  LaunchShape shape;
  int rows = 0, cols = 0;
  std::vector<double> perWarp;  // rows x cols, row-major
  InstructionTotals totals;
  double minValue = 0, maxValue = 0;  // over cells that ran
};

inline constexpr long long kMaxMapWarps = 1 << 18;

// Fails when the kernel has more than kMaxMapWarps warps, or when cancelled.
Result<KernelMap> kernelMap(PatternId id, const PatternParams& p,
                            const std::atomic<bool>* cancel = nullptr);

// Totals of every instruction of a kernel (in the kernel's instruction order), for comparison
// with Nsight Compute. No size limit: used at the sizes the check runs.
std::vector<InstructionTotals> kernelTotals(KernelId k, const PatternParams& p);

// The same added up by kind, as hardware counters add them: [space][op] (Space::Global = 0,
// Op::Load = 0), e.g. byKind[int(Space::Shared)][int(Op::Load)].wavefronts.
using TotalsByKind = std::array<std::array<InstructionTotals, 2>, 2>;
TotalsByKind kernelTotalsByKind(KernelId k, const PatternParams& p);

// ---------------------------------------------------------------------------------------------
// [SECTION] The panel's choices
// ---------------------------------------------------------------------------------------------

// What the lesson's panel chooses besides its numbers, for presets and plans: a choice's value is
// the index of its option in the panel's order (the registry test checks each range against the
// options its binding lists).

// The two patterns and the sliders of the global one, for presets and plans. Their ids say which
// pattern they belong to ("offset" alone is the strided copy's measurement).
inline constexpr ParamSpec kGlobalPatternChoice{.id = "global_pattern",
                                                .label = "Global memory: the pattern",
                                                .min = 0,
                                                .max = 10,
                                                .defaultValue = 0,
                                                .help =
                                                    "Which kernel's global-memory access the warp "
                                                    "picture, the heat map and the counters show."};

inline constexpr ParamSpec kSharedPatternChoice{
    .id = "shared_pattern",
    .label = "Shared memory: the pattern",
    .min = 0,
    .max = 2,
    .defaultValue = 1,
    .help = "Which kernel's shared-memory access the bank picture shows."};

inline constexpr ParamSpec kPaddedChoice{.id = "padded",
                                         .label = "Pad the tile (33 columns)",
                                         .min = 0,
                                         .max = 1,
                                         .defaultValue = 0,
                                         .help =
                                             "One unused float at the end of every row of the "
                                             "32x32 tile, so row r starts r banks further on."};

inline constexpr ParamSpec kElementChoice{.id = "global_element_bytes",
                                          .label = kElementBytes.label,
                                          .min = 0,
                                          .max = 4,
                                          .defaultValue = 2,
                                          .help = kElementBytes.help};

}  // namespace cudalab::memory
