// The playground's exercise table, the program the learner's text becomes, and the inputs and
// references every check uses (the launches and their validation: exercise_launch.cpp). Plain
// C++: the worker, the panel and the tests share it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "common/embedded.hpp"
#include "common/translatable.hpp"
#include "playground/playground.hpp"
#include "common/table.hpp"

namespace cudalab::embedded {
extern const EmbeddedFile kPlaygroundSources[];
extern const int kPlaygroundSources_count;
}  // namespace cudalab::embedded

namespace cudalab::playground {

// ---------------------------------------------------------------------------------------------
// [SECTION] Exercises
// ---------------------------------------------------------------------------------------------

namespace {

constexpr Arg kDoubleArgs[] = {Arg::In0, Arg::Out, Arg::N};
constexpr Arg kMultiplyArgs[] = {Arg::Out, Arg::In0, Arg::In1, Arg::N};
constexpr Arg kHypotArgs[] = {Arg::In0, Arg::In1, Arg::Out, Arg::N};
constexpr Arg kCounterArgs[] = {Arg::Counter};
constexpr Arg kHistogramArgs[] = {Arg::In0, Arg::N, Arg::XMin, Arg::XMax, Arg::Hist, Arg::Bins};
constexpr Arg kElementwiseArgs[] = {Arg::In0, Arg::Out, Arg::N};
constexpr Arg kMatmulArgs[] = {Arg::MatA, Arg::MatB, Arg::MatC, Arg::N};
constexpr Arg kReduceArgs[] = {Arg::In0, Arg::Partial, Arg::N};
constexpr Arg kMatrixMapArgs[] = {Arg::In0, Arg::Out, Arg::N};
constexpr Arg kWmmaArgs[] = {Arg::HalfA, Arg::HalfB, Arg::MatC, Arg::N};

constexpr const char* kDoubleHints[] = {
    N_("Which element is a thread's? threadIdx.x only counts inside one block: every block's "
       "thread 0 gets the same i. Add the blocks before it: blockIdx.x * blockDim.x + "
       "threadIdx.x."),
    N_("The grid is rounded up to whole blocks, so the last block has threads with i >= n. Without "
       "`if (i < n)` they write past the end of the array: the picture shows those writes after "
       "the last element."),
    N_("Try a grid that is too small (turn off \"grid from N\"): the elements no thread reached "
       "keep the poison and show as never written.")};
constexpr const char* kMultiplyHints[] = {
    N_("One block holds at most 1,024 threads, so one block cannot multiply a million numbers: the "
       "launch needs many blocks, and the kernel must know which block it is in."),
    N_("Use i = blockIdx.x * blockDim.x + threadIdx.x, and skip threads with i >= n.")};
constexpr const char* kHypotHints[] = {
    N_("128 x 64 = 8,192 threads for 1,000,000 numbers: each thread must do about 122 of them."),
    N_("A grid-stride loop: start at your own index and add gridDim.x * blockDim.x (every thread "
       "of the grid) until you pass n. It works for any grid, so the grid can be sized for the GPU "
       "rather than for the data.")};
constexpr const char* kCounterHints[] = {
    N_("`counter[0] += 1` is three steps: read, add, write. Two threads that read the same value "
       "both write value + 1, and one addition is lost."),
    N_("atomicAdd(&counter[0], 1) does the three steps as one that no other thread can interrupt. "
       "Atomics on one address are serialised: correct, but not free.")};
constexpr const char* kHistogramHints[] = {
    N_("Many threads find the same bin at once (there are only a few bins), so `hist[bin] += 1` "
       "loses counts, like the counter race."),
    N_("atomicAdd(&hist[bin], 1) makes each increment indivisible."),
    N_("Faster: each block counts into its own copy in __shared__ memory (atomics there are "
       "cheap), then adds its copy to hist once. Compare your time with CUB's.")};
constexpr const char* kElementwiseHints[] = {
    N_("For x = 0.001, x*x + 1 = 1.000001: float32 keeps about 7 digits, so after subtracting 1 "
       "only one or two correct digits are left. Below x = 0.0003 nothing is left: f(x) = 0."),
    N_("Multiply and divide by sqrt(x*x + 1) + 1: the result is x*x / (sqrt(x*x + 1) + 1), with no "
       "subtraction of nearly equal numbers."),
    N_("float64 cancels the same way, later: it is more than 8 ulps off below x = 0.3 or so, and "
       "below about 1e-8 nothing is left (float32: below 3e-4). Look at both curves.")};
constexpr const char* kMatmulHints[] = {
    N_("With n = 1000 and 16 x 16 blocks the grid is 63 x 63 blocks: 1,008 threads in each "
       "direction, 8 more than there are rows and columns."),
    N_("Threads with i >= n or j >= n must do nothing: the course's Numba kernel had `if i < "
       "C.shape[0] and j < C.shape[1]`."),
    N_("Then compare the time with the matmul lesson's tiled kernels and cuBLAS: every thread "
       "reads a whole row of A and column of B from global memory.")};
// How both float32 matrix products (naive and tiled) are checked.
constexpr const char* kProductCheck =
    N_("each element within n roundings of the float64 product (sum of |A[i,k] B[k,j]| times n "
       "float32 unit roundoffs)");
constexpr const char* kTiledMatmulHints[] = {
    N_("n = 1000 is not a multiple of 16: n / 16 = 62 tiles cover 992 of the 1,000 products each "
       "element of C adds. Round the number of tiles up."),
    N_("The last tile then reaches past the matrix: load a 0 where row, column or m * 16 + tx is "
       "n or more, so the extra products add nothing. The threads past the edge must still load "
       "and reach __syncthreads(); only their write of C is skipped."),
    N_("The two __syncthreads() are both needed: the first waits until the tile is loaded, the "
       "second until every thread has used it before the next tile overwrites it."),
    N_("Compare with the naive product (exercise 7): each number of A and B now comes from global "
       "memory n / 16 times instead of n times. The matmul lesson's ladder climbs further.")};
constexpr const char* kTransposeHints[] = {
    N_("Try n = 32 (one block): it is right. With more blocks, which tile of `out` does block "
       "(bx, by) fill? The tile of `in` at column bx, row by goes to column by, row bx of `out`."),
    N_("Swap the blocks when writing: x = blockIdx.y * 32 + threadIdx.x, y = blockIdx.x * 32 + "
       "threadIdx.y, and read the tile transposed, tile[threadIdx.x][threadIdx.y]."),
    N_("Reading tile[threadIdx.x][threadIdx.y] takes a column of the tile: 32 floats 32 apart, all "
       "in one bank of shared memory. Declare the tile 32 x 33 and they fall in 32 banks (the "
       "memory lesson's bank picture shows it)."),
    N_("Compare with the memory lesson's transpose ladder: the naive transpose, which writes a "
       "column of `out` per warp, is several times slower than the copy.")};
constexpr const char* kSoftmaxHints[] = {
    N_("float32's largest number is about 3.4e38 = exp(88.7): exp(100) is infinite, and infinity "
       "divided by infinity is NaN."),
    N_("exp(x - m) / sum exp(x - m) is the same softmax for any m. With m the row's largest score, "
       "every exponential is in (0, 1]: find the row's maximum first, with the same tree as the "
       "sum."),
    N_("After the tree, every thread reads part[0]. Add a __syncthreads() before part[] is "
       "overwritten by the next tree, or a fast thread overwrites the maximum before a slow one "
       "has read it."),
    N_("The app's version beside yours is an online softmax: one pass keeps a running maximum and "
       "rescales its sum each time the maximum grows, so the row is read twice instead of three "
       "times.")};
constexpr const char* kWmmaHints[] = {
    N_("Try n = 16 (one tile): it is right. With n = 32, where does row 1 of A's tile start in "
       "memory? The tile's rows are rows of the whole matrix, n numbers apart, not 16."),
    N_("The last argument of load_matrix_sync and store_matrix_sync is the leading dimension: "
       "how many elements apart the rows are in memory. For A, B and C stored row by row that is "
       "n."),
    N_("One warp computes one 16 x 16 tile of C: all 32 threads call every wmma function "
       "together, and the fragment's elements are spread over them in a layout you cannot rely "
       "on. That is why the tensor-cores lesson's later steps use mma.sync, whose layout is "
       "documented."),
    N_("Compare with the tensor-cores lesson's ladder: this is its first step. Staging the tiles "
       "in shared memory and feeding mma.sync from it make the next steps several times "
       "faster.")};
constexpr const char* kReduceHints[] = {
    N_("Follow the tree for 4 threads: stride 2 adds s[2] into s[0] and s[3] into s[1]; stride 1 "
       "must then add s[1] into s[0]. Does the loop run with stride 1?"),
    N_("One element per thread needs a grid as large as the data. A grid-stride loop before the "
       "tree lets each thread add many elements first (the reduction lesson's step 7)."),
    N_("The shared array has 256 places: a larger block writes past it.")};

constexpr Exercise kExercises[] = {
    {"double",
     N_("1. Hello, doubling"),
     N_("Course file 003: doubling 30 million numbers with a kernel, one thread per element, and "
        "the guard `if i < n`."),
     N_("Make the kernel double every one of the N numbers. Each thread must find its own element "
        "from its block and thread index, and threads past the end must not write."),
     "double_it",
     Kind::Map,
     MapOp::Double,
     kDoubleArgs,
     30000000,
     1,
     1LL << 28,
     "numbers",
     {{1, 1, 1}, {256, 1, 1}},
     true,
     0,
     N_("exact: doubling a float only changes its exponent"),
     kDoubleHints,
     "uses threadIdx.x alone, so every block writes the first blockDim.x elements",
     30000000,
     {{117188, 1, 1}, {256, 1, 1}},
     N_("the launch-config lesson's doubling kernel"),
     "CUB DeviceTransform"},
    {"multiply",
     N_("2. PyCUDA's multiply_them"),
     N_("Course file 001: PyCUDA's SourceModule with `multiply_them(float *dest, float *a, float "
        "*b)` and `const int i = threadIdx.x`, run in one block of 400 threads."),
     N_("The course's kernel is correct for 400 numbers in one block. Make it correct for any N, "
        "with as many blocks as N needs."),
     "multiply_them",
     Kind::Map,
     MapOp::Multiply,
     kMultiplyArgs,
     400,
     1,
     1LL << 28,
     "numbers",
     {{1, 1, 1}, {400, 1, 1}},
     true,
     0,
     N_("exact: one float32 multiplication, rounded once, as the CPU does it"),
     kMultiplyHints,
     "uses threadIdx.x alone: correct in one block, wrong past blockDim.x elements",
     1000000,
     {{3907, 1, 1}, {256, 1, 1}},
     "",
     "CUB DeviceTransform"},
    {"hypot",
     N_("3. hypot with a grid-stride loop"),
     N_("Course file 004: `hypot_stride` on 1,000,000 numbers with 128 blocks of 64 threads, "
        "checked with np.hypot."),
     N_("The grid is fixed at 128 blocks of 64 threads. Make every one of the N results right with "
        "a grid-stride loop, whatever the grid."),
     "hypot_stride",
     Kind::Map,
     MapOp::Hypot,
     kHypotArgs,
     1000000,
     1,
     1LL << 28,
     "numbers",
     {{128, 1, 1}, {64, 1, 1}},
     false,
     0,
     N_("within 4 float32 units in the last place of hypot in float64 (CUDA's hypotf is within 3)"),
     kHypotHints,
     "handles one element per thread, so 8,192 threads cover only the first 8,192 numbers",
     1000000,
     {{128, 1, 1}, {64, 1, 1}},
     "",
     "CUB DeviceTransform"},
    {"counter",
     N_("4. The counter race"),
     N_("Course file 004: `global_counter[0] += 1` from 64 x 64 threads prints less than 4096; "
        "`cuda.atomic.add` fixes it."),
     N_("Every thread adds 1 to one counter, which must end at the number of threads launched. Run "
        "the starting kernel a few times, watch the count, then fix it."),
     "count_threads",
     Kind::Counter,
     MapOp::Double,
     kCounterArgs,
     1,
     1,
     1,
     "",
     {{64, 1, 1}, {64, 1, 1}},
     false,
     0,
     N_("exact: the count must equal the threads launched, in every run"),
     kCounterHints,
     "reads, adds and writes back in three steps, so threads overwrite each other's additions",
     1,
     {{64, 1, 1}, {64, 1, 1}},
     "",
     ""},
    {"histogram",
     N_("5. The histogram"),
     N_("Course file 004: write `cuda_histogram` with a grid-stride loop and atomics, checked "
        "against `cpu_histogram` for 10,000 normal numbers in 10 bins between -4 and 4."),
     N_("Count the numbers in each bin exactly as the course's cpu_histogram does, for any N and "
        "any number of bins. Then make it faster and compare with CUB."),
     "histogram",
     Kind::Histogram,
     MapOp::Double,
     kHistogramArgs,
     10000000,
     1,
     1LL << 28,
     "numbers",
     {{128, 1, 1}, {64, 1, 1}},
     false,
     10,
     N_("exact per bin, except numbers within a rounding of a bin edge, which may count in either "
        "neighbour"),
     kHistogramHints,
     "adds to hist[bin] with `+= 1`, so threads counting into the same bin lose counts",
     10000000,
     {{128, 1, 1}, {64, 1, 1}},
     "",
     "CUB DeviceHistogram::HistogramEven"},
    {"elementwise",
     N_("6. An element-wise function"),
     N_("Course file 000: `@vectorize(['float32(float32)'], target='cuda')`, and float32 ignoring "
        "values much smaller than 1 (a tiny result comes out as 0)."),
     N_("Write only f. The app applies it to N numbers as float and as double and compares both "
        "with the exact value: make both within 8 units in the last place for every x."),
     "f",
     Kind::Elementwise,
     MapOp::Double,
     kElementwiseArgs,
     1000000,
     2,
     1LL << 27,
     "numbers",
     {{1, 1, 1}, {256, 1, 1}},
     true,
     0,
     N_("within 8 units in the last place of its own precision, float and double, of the exact "
        "value"),
     kElementwiseHints,
     "computes sqrt(x*x + 1) - 1 as written, which cancels for small x",
     1000000,
     {{3907, 1, 1}, {256, 1, 1}},
     "",
     ""},
    {"matmul",
     N_("7. The naive matrix product"),
     N_("Course file 001: Numba's `matmul_kernel` with `i, j = cuda.grid(2)` and the guard `if i < "
        "C.shape[0] and j < C.shape[1]`."),
     N_("Compute C = A B for n x n matrices, one thread per element of C, correct for any n. Then "
        "compare your time with the matmul lesson's best kernel and cuBLAS."),
     "matmul",
     Kind::Matmul,
     MapOp::Double,
     kMatmulArgs,
     1000,
     1,
     4096,
     "rows and columns",
     {{63, 63, 1}, {16, 16, 1}},
     true,
     0,
     kProductCheck,
     kMatmulHints,
     "has no guard, so with n = 1000 the threads past the last column write into the next row "
     "(wrong elements) and those past the last row write past the end of C",
     1000,
     {{63, 63, 1}, {16, 16, 1}},
     N_("the matmul lesson's warp-tile kernel"),
     "cuBLAS SGEMM"},
    {"reduce",
     N_("8. A sum reduction"),
     N_("Course file 002: `sum_kernel` adds each block's part in a tree with `cuda.syncthreads()`, "
        "and the host adds the partial sums."),
     N_("Each block writes the sum of its part to partial[blockIdx.x]; the app adds the partial "
        "sums. Make the total right for any N and any grid. (The numbers are small whole numbers, "
        "so float32 adds them exactly and one number left out shows.)"),
     "sum_blocks",
     Kind::Reduce,
     MapOp::Double,
     kReduceArgs,
     1LL << 24,
     1,
     1LL << 28,
     "numbers",
     {{65536, 1, 1}, {256, 1, 1}},
     true,
     0,
     N_("exact: the numbers are whole numbers from -4 to 4, so every float32 sum of them is exact "
        "and the total must equal the exact sum (the partial sums are added in float64)"),
     kReduceHints,
     "stops the tree at stride 2, so s[1] is never added into s[0]",
     1LL << 24,
     {{65536, 1, 1}, {256, 1, 1}},
     N_("the reduction lesson's best step"),
     "CUB DeviceReduce::Sum"},
    {"tiled-matmul",
     N_("9. A tiled matrix product in shared memory"),
     N_("Course file 001: `matmul_shared_kernel` loads 16 x 16 tiles of A and B into "
        "`cuda.shared.array` and adds their products between two `cuda.syncthreads()`; "
        "`matmul_tiled_kernel` adds the guards for any size."),
     N_("Compute C = A B for n x n matrices with 16 x 16 tiles in shared memory, correct for any "
        "n. Then compare your time with the naive product, the matmul lesson's best kernel and "
        "cuBLAS."),
     "matmul_tiled",
     Kind::Matmul,
     MapOp::Double,
     kMatmulArgs,
     1000,
     1,
     4096,
     "rows and columns",
     {{63, 63, 1}, {16, 16, 1}},
     true,
     0,
     kProductCheck,
     kTiledMatmulHints,
     "runs n / 16 tiles, rounded down, with no guards: for n = 1000 the last 8 products of every "
     "element are missing and the threads past the edge write into the next row and past C",
     1000,
     {{63, 63, 1}, {16, 16, 1}},
     N_("the matmul lesson's warp-tile kernel"),
     "cuBLAS SGEMM"},
    {"transpose",
     N_("10. A transpose through shared memory"),
     N_("Course file 000, trap 2 (coalescing): `B[x, y] = A[y, x]` with neighbouring threads on "
        "neighbouring columns; reading A is coalesced, writing B is not."),
     N_("Write out = the transpose of the n x n matrix in, through a 32 x 32 tile in shared memory "
        "so that both the reads and the writes are coalesced, correct for any n. Then compare "
        "with the memory lesson's best transpose and a plain copy of the same bytes."),
     "transpose",
     Kind::Transpose,
     MapOp::Double,
     kMatrixMapArgs,
     1000,
     1,
     8192,
     "rows and columns",
     {{32, 32, 1}, {32, 32, 1}},
     true,
     0,
     N_("exact: a transpose moves numbers without arithmetic, so every element must equal "
        "in[column, row] bit for bit"),
     kTransposeHints,
     "writes block (bx, by)'s tile back to block (bx, by) instead of (by, bx): only the tiles on "
     "the diagonal come out right",
     1000,
     {{32, 32, 1}, {32, 32, 1}},
     N_("the memory lesson's best transpose (padded tile, four rows per thread)"),
     N_("a device-to-device copy of the same bytes (cudaMemcpy: the ceiling)")},
    {"softmax",
     N_("11. A row-wise softmax"),
     N_("Course file 000: float32's range and cancellation; the precision lesson shows where "
        "float32 overflows and where subtracting close numbers loses digits."),
     N_("Compute the softmax of each row of an n x n matrix of scores, one block of 256 threads "
        "per "
        "row: exp of each score over the sum of the row's exps. Make it right for scores up to "
        "120 and any n. Then compare with the app's online softmax."),
     "softmax_rows",
     Kind::Softmax,
     MapOp::Double,
     kMatrixMapArgs,
     1000,
     1,
     8192,
     "rows and columns",
     {{1000, 1, 1}, {256, 1, 1}},
     true,
     0,
     N_("each element within a few float32 roundings of the float64 softmax (relative: the "
        "rounding of x - max carried through exp, the row's n additions and the division)"),
     kSoftmaxHints,
     "takes exp of the raw scores: exp(x) overflows to infinity for x above 88.7, and the row "
     "becomes NaN",
     1000,
     {{1000, 1, 1}, {256, 1, 1}},
     N_("the app's online softmax (maximum and sum in one pass)"),
     ""},
    {"wmma",
     N_("12. A tensor-core tile with WMMA"),
     N_("The tensor-cores lesson, step 1: nvcuda::wmma fragments of 16 x 16 x 16 in half "
        "precision, one warp per tile of C, float32 accumulation."),
     N_("Compute C = A B for n x n matrices of halves with the tensor cores: one warp per 16 x 16 "
        "tile of C, fragments loaded from global memory, accumulated in float. The app pads A, B "
        "and C with zeros to a multiple of 16 and passes that n. Then compare with the "
        "tensor-cores lesson's first step and cuBLAS."),
     "wmma_matmul",
     Kind::Wmma,
     MapOp::Double,
     kWmmaArgs,
     1024,
     1,
     4096,
     "rows and columns",
     {{64, 64, 1}, {32, 1, 1}},
     true,
     0,
     N_("each element within the tensor cores' roundings of the float64 product ((2 n + 3) float32 "
        "unit roundoffs times the sum of |A[i,k] B[k,j]|: they add in float32 and may truncate); "
        "the inputs are exact in half"),
     kWmmaHints,
     "passes 16 as the leading dimension of A and B: right for n = 16, wrong for every larger n",
     1024,
     {{64, 64, 1}, {32, 1, 1}},
     N_("the tensor-cores lesson's first step (WMMA from global memory)"),
     "cuBLAS GemmEx FP16"},
};

std::string_view embeddedSource(const Exercise& e, const char* which) {
  const std::string name = std::string(e.id) + "." + which + ".cu";
  for (int i = 0; i < embedded::kPlaygroundSources_count; ++i)
    if (name == embedded::kPlaygroundSources[i].name) return embedded::kPlaygroundSources[i].text;
  return {};
}

}  // namespace

std::span<const Exercise> exercises() {
  return kExercises;
}

const Exercise* findExercise(std::string_view id) {
  return findRow(kExercises, &Exercise::id, id);
}

std::string_view starterSource(const Exercise& e) {
  return embeddedSource(e, "starter");
}

std::string_view solutionSource(const Exercise& e) {
  return embeddedSource(e, "solution");
}

std::vector<std::string> entryPoints(const Exercise& e) {
  if (e.kind == Kind::Elementwise) return {"cudalab_apply_float", "cudalab_apply_double"};
  return {e.entry};
}

std::string programSource(const Exercise& e, std::string_view learnerText) {
  std::string s(learnerText);
  if (e.kind != Kind::Elementwise) return s;
  // Appended, never prepended: the compiler's line numbers stay the editor's. The loop is not
  // unrolled: each element is one call of f, and four inlined copies of a double-precision f
  // (division and square root each with their slow path) tripled the compile time (185 ms on the
  // H100's host) for no speed in a loop that runs about once per thread.
  s += R"(

// Added by cudalab: f applied to every element, once as float and once as double.
template <typename T>
__device__ void cudalab_apply(const T* x, T* y, int n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    #pragma unroll 1
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = f<T>(x[i]);
}
extern "C" __global__ void cudalab_apply_float(const float* x, float* y, int n) { cudalab_apply(x, y, n); }
extern "C" __global__ void cudalab_apply_double(const double* x, double* y, int n) { cudalab_apply(x, y, n); }
)";
  return s;
}

std::vector<int> expectedParamSizes(const Exercise& e) {
  if (e.kind == Kind::Elementwise) return {8, 8, 4};
  std::vector<int> sizes;
  for (Arg a : e.args)
    sizes.push_back(a == Arg::N || a == Arg::Bins || a == Arg::XMin || a == Arg::XMax ? 4 : 8);
  return sizes;
}

std::string signatureText(const Exercise& e) {
  // Each argument as the kernel's parameter list declares it.
  static constexpr EnumName<Arg> kDeclared[] = {
      {Arg::In0, "const float* in"},    {Arg::In1, "const float* b"},
      {Arg::Out, "float* out"},         {Arg::N, "int n"},
      {Arg::Counter, "int* counter"},   {Arg::XMin, "float xmin"},
      {Arg::XMax, "float xmax"},        {Arg::Hist, "int* hist"},
      {Arg::Bins, "int nbins"},         {Arg::MatA, "const float* A"},
      {Arg::MatB, "const float* B"},    {Arg::MatC, "float* C"},
      {Arg::Partial, "float* partial"}, {Arg::HalfA, "const __half* A"},
      {Arg::HalfB, "const __half* B"}};
  auto one = [](Arg a) { return nameOf(kDeclared, a); };
  if (e.kind == Kind::Elementwise) return "template <typename T> __device__ T f(T x)";
  std::string s = std::string(e.entry) + "(";
  for (size_t i = 0; i < e.args.size(); ++i) {
    std::string a = one(e.args[i]);
    // The course's own names where they differ.
    if (e.op == MapOp::Multiply && e.kind == Kind::Map) {
      if (e.args[i] == Arg::Out) a = "float* dest";
      if (e.args[i] == Arg::In0) a = "const float* a";
    }
    if (e.op == MapOp::Hypot && e.kind == Kind::Map) {
      if (e.args[i] == Arg::In0) a = "const float* a";
      if (e.args[i] == Arg::Out) a = "float* c";
    }
    if (e.kind == Kind::Histogram && e.args[i] == Arg::In0) a = "const float* x";
    s += (i ? ", " : "") + a;
  }
  return s + ")";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Inputs
// ---------------------------------------------------------------------------------------------

Inputs makeInputs(const Exercise& e, const RunParams& p) {
  Inputs in;
  std::mt19937_64 rng(p.seed * 0x9E3779B97F4A7C15ull + 12345);
  auto uniform = [&](std::vector<float>& v, long long count, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    v.resize(static_cast<size_t>(count));
    for (float& x : v) {
      do {
        x = d(rng);
      } while (x == 0.0f);  // never zeros: a zero hides a kernel that did nothing
    }
  };
  auto normal = [&](std::vector<float>& v, long long count) {
    std::normal_distribution<float> d(0.0f, 1.0f);
    v.resize(static_cast<size_t>(count));
    for (float& x : v)
      x = d(rng);
  };
  switch (e.kind) {
    case Kind::Map:
      uniform(in.in0, p.n, e.op == MapOp::Hypot ? -12.0f : -1.0f,
              e.op == MapOp::Hypot ? 12.0f : 1.0f);
      if (e.op != MapOp::Double)
        uniform(in.in1, p.n, e.op == MapOp::Hypot ? -12.0f : -1.0f,
                e.op == MapOp::Hypot ? 12.0f : 1.0f);
      break;
    case Kind::Counter:
      break;
    case Kind::Histogram:
      normal(in.in0, p.n);
      break;
    case Kind::Reduce: {
      // Whole numbers from -4 to 4, never 0: every float32 sum of them is exact, so the total is
      // checked exactly and a single element left out (or added twice) shows.
      std::uniform_int_distribution<int> d(1, 8);
      in.in0.resize(static_cast<size_t>(p.n));
      for (float& x : in.in0) {
        const int k = d(rng);
        x = static_cast<float>(k <= 4 ? k : 4 - k);
      }
      break;
    }
    case Kind::Elementwise: {
      in.in0.resize(static_cast<size_t>(p.n));
      const double lo = std::log(1e-8), hi = std::log(1e4);
      for (long long i = 0; i < p.n; ++i)
        in.in0[static_cast<size_t>(i)] = static_cast<float>(
            std::exp(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(p.n - 1)));
      break;
    }
    case Kind::Matmul:
      uniform(in.in0, p.n * p.n, -1.0f, 1.0f);
      uniform(in.in1, p.n * p.n, -1.0f, 1.0f);
      break;
    case Kind::Transpose:
      uniform(in.in0, p.n * p.n, -1.0f, 1.0f);
      break;
    case Kind::Softmax:
      // Scores past exp's float32 range (exp(88.7) is its largest number): the overflow the
      // max subtraction avoids shows in almost every row.
      uniform(in.in0, p.n * p.n, -30.0f, 120.0f);
      break;
    case Kind::Wmma: {
      // k / 256 for k in -256..256, not 0: half holds them exactly, so the products are exact
      // and the check measures the tensor cores' additions alone.
      std::uniform_int_distribution<int> d(1, 512);
      for (std::vector<float>* v : {&in.in0, &in.in1}) {
        v->resize(static_cast<size_t>(p.n * p.n));
        for (float& x : *v) {
          const int k = d(rng);
          x = static_cast<float>(k <= 256 ? k : 256 - k) / 256.0f;
        }
      }
      break;
    }
  }
  return in;
}

double mapReference(MapOp op, double a, double b) {
  switch (op) {
    case MapOp::Double:
      return 2 * a;
    case MapOp::Multiply:
      return a * b;
    case MapOp::Hypot:
      return std::hypot(a, b);
  }
  return 0;
}

double mapTolerance(MapOp op, double reference) {
  // Doubling is exact. A float32 product of two floats is the float64 product rounded once: half
  // a unit in the last place. hypotf is within 3 units; 4 allowed.
  const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(reference), 1e-37)) - 23);
  switch (op) {
    case MapOp::Double:
      return 0;
    case MapOp::Multiply:
      return 0.5 * ulp;
    case MapOp::Hypot:
      return 4 * ulp;
  }
  return 0;
}

std::vector<int> cpuHistogram(std::span<const float> x, float xmin, float xmax, int bins) {
  std::vector<int> h(static_cast<size_t>(std::max(bins, 0)), 0);
  const float width = (xmax - xmin) / static_cast<float>(bins);
  for (float v : x) {
    // volatile keeps each float32 rounding where NumPy has it (no contraction, no reassociation).
    volatile float diff = v - xmin;
    volatile float q = diff / width;
    const int b = static_cast<int>(q);  // np.int32: truncation toward zero
    if (b >= 0 && b < bins) ++h[static_cast<size_t>(b)];
  }
  return h;
}

std::vector<int> histogramSlack(std::span<const float> x, float xmin, float xmax, int bins) {
  std::vector<int> slack(static_cast<size_t>(std::max(bins, 0)), 0);
  const float width = (xmax - xmin) / static_cast<float>(bins);
  for (float v : x) {
    const double q = (static_cast<double>(v) - xmin) / width;
    const double nearest = std::round(q);
    // Within 4 float32 roundings of an edge: another correct formula may land on either side.
    if (std::fabs(q - nearest) <= 4 * 6e-8 * std::max(1.0, std::fabs(q))) {
      for (long long b : {static_cast<long long>(nearest) - 1, static_cast<long long>(nearest)})
        if (b >= 0 && b < bins) ++slack[static_cast<size_t>(b)];
    }
  }
  return slack;
}

long double elementwiseExact(long double x) {
  return x * x / (std::sqrt(x * x + 1.0L) + 1.0L);
}

std::vector<double> softmaxReference(std::span<const float> x, int n) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < static_cast<size_t>(n); ++r) {
    const float* row = x.data() + r * static_cast<size_t>(n);
    double* out = y.data() + r * static_cast<size_t>(n);
    double m = -HUGE_VAL, s = 0;
    for (int j = 0; j < n; ++j)
      m = std::max(m, static_cast<double>(row[j]));
    for (int j = 0; j < n; ++j)
      s += out[j] = std::exp(static_cast<double>(row[j]) - m);
    for (int j = 0; j < n; ++j)
      out[j] /= s;
  }
  return y;
}

double softmaxTolerance(double gap, double reference, int n) {
  const double u = std::ldexp(1.0, -24);
  // x - max: one rounding of a number up to |gap|, an absolute error |gap| u in the exponent;
  // exp: 2 units (expf), or 2 + 1.2 |gap| with __expf. The sum: n roundings, plus the other
  // terms' exp errors weighted by their size (|g| exp(-g) is at most 0.37, so at most about
  // 1.3 n units relative to the sum, which is at least 1). The quotient: 1.
  const double relative = (4 * std::fabs(gap) + 3.0 * n + 16) * u;
  return relative * std::fabs(reference) + std::ldexp(1.0, -125);
}

double sumBound(long long depth, double absSum) {
  const double u = std::ldexp(1.0, -24);
  const double du = static_cast<double>(depth) * u;
  return du < 1 ? du / (1 - du) * absSum : HUGE_VAL;
}

}  // namespace cudalab::playground
