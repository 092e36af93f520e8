// A tiled matrix product (course file 001, `matmul_tiled_kernel`): C = A B for n x n matrices
// stored row by row, through 16 x 16 tiles in shared memory.
// The app launches:  matmul_tiled<<<grid, block>>>(A, B, C, n)   with 16 x 16 blocks.
#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float sA[TILE][TILE];
  __shared__ float sB[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;  // neighbouring threads (tx) take neighbouring columns:
  int col = blockIdx.x * TILE + tx;  // their loads of B and stores of C are coalesced
  float tmp = 0.0f;
  // Round the number of tiles up: the last tile sticks out past the matrix when n is not a
  // multiple of 16, and what lies outside is loaded as 0 so that it adds nothing.
  for (int m = 0; m < (n + TILE - 1) / TILE; ++m) {
    int a = m * TILE + tx, b = m * TILE + ty;
    sA[ty][tx] = (row < n && a < n) ? A[row * n + a] : 0.0f;
    sB[ty][tx] = (b < n && col < n) ? B[b * n + col] : 0.0f;
    __syncthreads();  // the whole tile is loaded before anyone reads it
    for (int k = 0; k < TILE; ++k)
      tmp += sA[ty][k] * sB[k][tx];
    __syncthreads();  // everyone has read the tile before the next one overwrites it
  }
  if (row < n && col < n) C[row * n + col] = tmp;
}
