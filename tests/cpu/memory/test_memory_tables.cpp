// The memory lesson's GPU-side tables and refusals, checked without a GPU: the transpose ladder
// (ids unique, copies first, the access model's view of each step), the CPU transpose, memory
// checks that refuse with the numbers, the strided copy's model efficiency, the model-check cases.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "memory/memory.hpp"

namespace cudalab::mem {

using namespace memory;
namespace {

TEST(MemoryTables, LadderIdsAreUniqueAndCopiesComeFirst) {
  std::set<std::string> ids;
  bool seenTranspose = false;
  for (const TransposeStepInfo& s : transposeSteps()) {
    EXPECT_TRUE(ids.insert(s.id).second) << s.id;
    EXPECT_EQ(&transposeStep(s.step), &s);
    if (!s.ceiling) seenTranspose = true;
    EXPECT_FALSE(s.ceiling && seenTranspose) << s.id << " is a copy after a transpose";
    EXPECT_GT(std::string(s.help).size(), 40u);
  }
}

TEST(MemoryTables, ModelSeesEachStepAsItIsBuilt) {
  // At 256 x 256: the naive step stores 32 sectors per request, the others 4; the unpadded tile
  // reads shared memory 32-way, the padded ones without conflict.
  for (const TransposeStepInfo& s : transposeSteps()) {
    if (s.step == TransposeStep::Memcpy) continue;
    const PatternParams p = patternParams(s, 256, 256);
    const std::vector<InstructionTotals> t = kernelTotals(s.kernel, p);
    const KernelInfo& k = kernelInfo(s.kernel);
    for (size_t i = 0; i < t.size(); ++i) {
      const Instruction& in = k.instructions[i];
      if (in.space == Space::Global) {
        const double want = (s.step == TransposeStep::Naive && in.op == Op::Store) ? 32 : 4;
        EXPECT_DOUBLE_EQ(t[i].sectorsPerRequest(), want) << s.id << " " << in.name;
      } else {
        const double want = (in.op == Op::Load && !s.padded) ? 32 : 1;
        EXPECT_DOUBLE_EQ(t[i].wavefrontsPerRequest(), want) << s.id << " " << in.name;
      }
    }
  }
}

TEST(MemoryTables, CpuTransposeOfRandomMatrices) {
  std::mt19937 rng(std::random_device{}());
  for (auto [rows, cols] : std::vector<std::pair<int, int>>{{1, 1}, {31, 33}, {1000, 17}}) {
    std::vector<float> a(size_t(rows) * size_t(cols)), b(a.size()), c(a.size());
    for (float& v : a)
      v = std::uniform_real_distribution<float>(-1, 1)(rng);
    transposeCpu(a.data(), b.data(), rows, cols);
    transposeCpu(b.data(), c.data(), cols, rows);
    EXPECT_EQ(a, c) << rows << "x" << cols;
    for (int y = 0; y < rows; y += 7)
      for (int x = 0; x < cols; x += 5)
        EXPECT_EQ(b[size_t(x) * size_t(rows) + size_t(y)], a[size_t(y) * size_t(cols) + size_t(x)]);
  }
}

TEST(MemoryTables, RefusalsCarryTheNumbers) {
  TransposeParams p;
  p.rows = p.cols = 16384;
  const Status s = checkMemory(p, std::size_t(1) << 30);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.sentence().find("2,048 MiB"), std::string::npos) << s.sentence();
  EXPECT_NE(s.sentence().find("1,024 MiB"), std::string::npos) << s.sentence();
  EXPECT_TRUE(checkMemory(p, std::size_t(80) << 30).ok());

  StridedParams sp;
  sp.count = 1 << 26;
  sp.maxStride = 32;
  const Status st = checkMemory(sp, std::size_t(8) << 30);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.sentence().find("Stride 32"), std::string::npos) << st.sentence();

  p.rows = 0;
  EXPECT_FALSE(validate(p).ok());
  sp.maxStride = 33;
  EXPECT_FALSE(validate(sp).ok());
}

TEST(MemoryTables, StridedEfficiencyFollowsTheSectors) {
  EXPECT_DOUBLE_EQ(stridedEfficiency(1, 0), 1.0);
  EXPECT_DOUBLE_EQ(stridedEfficiency(2, 0), 0.5);
  EXPECT_DOUBLE_EQ(stridedEfficiency(4, 0), 0.25);
  EXPECT_DOUBLE_EQ(stridedEfficiency(8, 0), 0.125);
  EXPECT_DOUBLE_EQ(stridedEfficiency(32, 0), 0.125);
  // Misaligned by one float: 5 sectors for 4 sectors' worth of bytes.
  EXPECT_DOUBLE_EQ(stridedEfficiency(1, 1), 0.8);
}

TEST(MemoryTables, ModelCheckCasesAreValidAndCoverEveryKernel) {
  std::set<KernelId> kernels;
  std::set<std::string> labels;
  for (const ModelCheckCase& c : modelCheckCases()) {
    EXPECT_TRUE(validate(c.p).ok()) << c.label;
    EXPECT_TRUE(labels.insert(c.label).second) << c.label;
    kernels.insert(c.kernel);
  }
  EXPECT_EQ(kernels.size(), kernelInfos().size());
}

}  // namespace
}  // namespace cudalab::mem
