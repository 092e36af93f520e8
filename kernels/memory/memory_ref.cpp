// The memory lesson's tables, validation and CPU references: everything of memory.hpp that needs
// no GPU.
#include <algorithm>
#include <string>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "memory/memory.hpp"

namespace cudalab::memory {

// ---------------------------------------------------------------------------------------------
// [SECTION] Transpose ladder
// ---------------------------------------------------------------------------------------------

namespace {

const TransposeStepInfo kSteps[] = {
    {TransposeStep::Memcpy, "memcpy", N_("cudaMemcpy (device to device)"), KernelId::CopyTiled,
     false, 4, true,
     N_("The driver's own copy of A into B: no transposing, just moving the bytes. The ceiling any "
        "kernel that reads and writes every element once can hope for.")},
    {TransposeStep::Copy, "copy", N_("Copy kernel (same shape)"), KernelId::CopyTiled, false, 4,
     true,
     N_("B = A with the transposes' launch shape: 32x8 threads per 32x32 tile, four elements per "
        "thread, every read and write coalesced. What a transpose would reach if transposing were "
        "free.")},
    {TransposeStep::Naive, "naive", N_("Naive (the course's B[x, y] = A[y, x])"),
     KernelId::TransposeNaive, false, 1, false,
     N_("One element per thread. Reading A along a row is coalesced, but writing B walks down a "
        "column: each lane of a warp writes a different row of B, 32 sectors for 128 useful "
        "bytes.")},
    {TransposeStep::Tiled, "tiled", N_("Tiled through shared memory"), KernelId::TransposeTiled,
     false, 1, false,
     N_("What was wrong: the naive kernel's writes were not coalesced. A 32x32 block reads a tile "
        "of A by rows into shared memory, then writes it to B by rows, reading the tile by "
        "columns. "
        "Both global accesses are now coalesced, but a column of a 32-float-wide tile lies in one "
        "bank: every read of the tile is a 32-way bank conflict.")},
    {TransposeStep::Padded, "padded", N_("Tiled, padded tile (33 columns)"),
     KernelId::TransposeTiled, true, 1, false,
     N_("What was wrong: the tile's columns all lay in one bank. One unused column of padding (33 "
        "floats per row) shifts each row by one bank, so the 32 words of a column fall in 32 "
        "different banks: no conflict.")},
    {TransposeStep::PaddedFour, "padded4", N_("Padded, 4 elements per thread"),
     KernelId::TransposeTiled, true, 4, false,
     N_("What was wrong: a 1024-thread block, each thread moving one element, spends much of its "
        "time on index arithmetic and synchronisation, and only one such block fits an SM at a "
        "time with little left over. A 32x8 block whose threads move four elements each keeps more "
        "loads in flight per thread and more blocks per SM (NVIDIA's transposeNoBankConflicts).")},
};

}  // namespace

std::span<const TransposeStepInfo> transposeSteps() {
  return kSteps;
}

const TransposeStepInfo& transposeStep(TransposeStep s) {
  return kSteps[static_cast<size_t>(s)];
}

PatternParams patternParams(const TransposeStepInfo& s, int rows, int cols) {
  PatternParams p;
  p.rows = rows;
  p.cols = cols;
  p.padded = s.padded;
  p.elementsPerThread = s.elementsPerThread;
  return p;
}

int modelExtent(int n) {
  return n <= 1024 ? n : 992 + n % 32;
}

StepModel stepModel(const TransposeStepInfo& s, int rows, int cols) {
  const PatternParams p = patternParams(s, modelExtent(rows), modelExtent(cols));
  const std::vector<InstructionTotals> t = kernelTotals(s.kernel, p);
  const KernelInfo& k = kernelInfo(s.kernel);
  StepModel m;
  for (size_t i = 0; i < t.size(); ++i) {
    const Instruction& in = k.instructions[i];
    if (in.space == Space::Global)
      (in.op == Op::Load ? m.loadSectors : m.storeSectors) = t[i].sectorsPerRequest();
    else if (in.op == Op::Load)
      m.sharedLoad = t[i].wavefrontsPerRequest();
  }
  return m;
}

Status validate(const TransposeParams& p) {
  CUDALAB_TRY(checkRange(kMatrixRows, p.rows));
  CUDALAB_TRY(checkRange(kMatrixCols, p.cols));
  CUDALAB_TRY(checkRuns(p.warmup, p.runs));
  return {};
}

Status checkMemory(const TransposeParams& p, std::size_t freeDeviceBytes) {
  const double need = 2.0 * double(p.rows) * double(p.cols) * sizeof(float);
  if (need > 0.9 * double(freeDeviceBytes))
    return Status::errorf(
        N_("A %s x %s transpose needs two matrices, %s on the GPU; only %s are free."),
        {std::to_string(p.rows), std::to_string(p.cols), mib(need), mib(double(freeDeviceBytes))});
  return {};
}

void transposeCpu(const float* A, float* B, int rows, int cols) {
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      B[size_t(x) * size_t(rows) + size_t(y)] = A[size_t(y) * size_t(cols) + size_t(x)];
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Strided copy
// ---------------------------------------------------------------------------------------------

Status validate(const StridedParams& p) {
  CUDALAB_TRY(checkRange(kCopyCount, double(p.count)));
  CUDALAB_TRY(checkRange(kMaxStride, p.maxStride));
  CUDALAB_TRY(checkRange(kOffset, p.offset));
  CUDALAB_TRY(checkRuns(p.warmup, p.runs));
  return {};
}

Status checkMemory(const StridedParams& p, std::size_t freeDeviceBytes) {
  const double span = double(p.count - 1) * p.maxStride + p.offset + 1;
  const double need = 2.0 * span * sizeof(float) + double(p.count) * sizeof(float);
  if (need > 0.9 * double(freeDeviceBytes))
    return Status::errorf(N_("Stride %s over %s elements spreads them over %s per array, %s in "
                             "all; only %s are free. Lower the largest stride or the element "
                             "count."),
                          {std::to_string(p.maxStride), thousands(p.count),
                           mib(span * sizeof(float)), mib(need), mib(double(freeDeviceBytes))});
  return {};
}

double stridedEfficiency(int stride, int offset) {
  PatternParams p;
  p.stride = stride;
  p.offset = offset;
  p.count = 32 * 256;  // enough warps for every alignment the offset produces
  return kernelTotals(KernelId::StridedCopy, p)[0].efficiency();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Model check
// ---------------------------------------------------------------------------------------------

std::vector<ModelCheckCase> modelCheckCases() {
  std::vector<ModelCheckCase> cases;
  auto add = [&](std::string label, KernelId k, PatternParams p) {
    cases.push_back({std::move(label), k, p});
  };
  PatternParams p;
  p.count = 1 << 20;
  for (int s : {1, 2, 4, 8, 32}) {
    p.stride = s;
    add("strided_copy float s=" + std::to_string(s), KernelId::StridedCopy, p);
  }
  p.stride = 1;
  p.offset = 1;
  add("strided_copy float s=1 o=1", KernelId::StridedCopy, p);
  p.offset = 0;
  for (int e : {1, 2, 8, 16}) {
    p.elementBytes = e;
    add("strided_copy " + std::to_string(e) + "-byte s=1", KernelId::StridedCopy, p);
  }
  p.elementBytes = 4;
  p.rows = 1000;
  p.cols = 1000;
  add("traverse_rows 1000x1000", KernelId::TraverseRows, p);
  add("traverse_columns 1000x1000", KernelId::TraverseColumns, p);
  p.structFloats = 3;
  add("read_aos 3 floats", KernelId::ReadAoS, p);
  add("read_soa", KernelId::ReadSoA, p);
  add("transpose_naive 1000x1000", KernelId::TransposeNaive, p);
  p.rows = 1000;
  p.cols = 17;
  add("transpose_naive 1000x17", KernelId::TransposeNaive, p);
  p.rows = p.cols = 1024;
  for (int e : {1, 4})
    for (bool pad : {false, true}) {
      p.elementsPerThread = e;
      p.padded = pad;
      const std::string how = std::string(pad ? " padded" : "") + " e=" + std::to_string(e);
      add("transpose_tiled" + how, KernelId::TransposeTiled, p);
      add("copy_through_tile" + how, KernelId::CopyThroughTile, p);
    }
  p.padded = false;
  p.elementsPerThread = 4;
  add("copy_tiled 1024x1024", KernelId::CopyTiled, p);
  p.rows = 256;
  p.cols = 256;
  p.inner = 256;
  add("matmul_course 256^3", KernelId::MatmulCourse, p);
  add("matmul_swapped 256^3", KernelId::MatmulSwapped, p);
  for (int s : {0, 1, 2, 4, 32}) {
    p.stride = s;
    add("shared_strided float s=" + std::to_string(s), KernelId::SharedStrided, p);
  }
  p.stride = 1;
  for (int e : {1, 8, 16}) {
    p.elementBytes = e;
    add("shared_strided " + std::to_string(e) + "-byte s=1", KernelId::SharedStrided, p);
  }
  p.elementBytes = 8;
  p.stride = 2;
  add("shared_strided 8-byte s=2", KernelId::SharedStrided, p);
  return cases;
}

}  // namespace cudalab::memory
