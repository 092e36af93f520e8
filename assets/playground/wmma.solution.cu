// A tensor-core tile with WMMA (the tensor-cores lesson, step 1): C = A B for n x n matrices
// stored row by row, A and B in half precision, C in float, one warp per 16 x 16 tile of C.
// The app pads A, B and C with zeros to n, a multiple of 16, and launches:
//   wmma_matmul<<<dim3(n / 16, n / 16), 32>>>(A, B, C, n)
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_matmul(const __half* A, const __half* B, float* C, int n) {
  const int row = blockIdx.y * 16;
  const int col = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  for (int k = 0; k < n; k += 16) {
    // A tile's rows are rows of the whole matrix: n elements apart (the leading dimension).
    wmma::load_matrix_sync(a, A + row * n + k, n);
    wmma::load_matrix_sync(b, B + k * n + col, n);
    wmma::mma_sync(c, a, b, c);  // the tensor cores: 16 x 16 x 16 products, added in float
  }
  wmma::store_matrix_sync(C + row * n + col, c, n, wmma::mem_row_major);
}
