// A tensor-core tile with WMMA (the tensor-cores lesson, step 1): C = A B for n x n matrices
// stored row by row, A and B in half precision, C in float. The tensor cores multiply whole
// 16 x 16 x 16 tiles: one warp loads a 16 x 16 piece of A and of B into "fragments", and one
// mma_sync adds their product into a 16 x 16 accumulator fragment.
// The app pads A, B and C with zeros to n, a multiple of 16, and launches one warp per tile of C:
//   wmma_matmul<<<dim3(n / 16, n / 16), 32>>>(A, B, C, n)
// Here n = 1024: run it and look at C's picture. Then try n = 16.
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_matmul(const __half* A, const __half* B, float* C, int n) {
  const int row = blockIdx.y * 16;  // this warp's tile of C: rows row..row+15,
  const int col = blockIdx.x * 16;  // columns col..col+15
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  for (int k = 0; k < n; k += 16) {
    // The tile of A at (row, k) and the tile of B at (k, col); the last argument is how many
    // elements apart the tile's rows are in memory.
    wmma::load_matrix_sync(a, A + row * n + k, 16);
    wmma::load_matrix_sync(b, B + k * n + col, 16);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(C + row * n + col, c, n, wmma::mem_row_major);
}
