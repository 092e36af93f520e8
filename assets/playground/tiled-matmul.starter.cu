// A tiled matrix product (course file 001, `matmul_shared_kernel`): C = A B for n x n matrices
// stored row by row. Each 16 x 16 block loads a tile of A and a tile of B into shared memory, so
// each number read from global memory is used 16 times instead of once.
// The app launches:  matmul_tiled<<<grid, block>>>(A, B, C, n)   with 16 x 16 blocks.
// The course ran it for n a multiple of 16. Here n = 1000: run it and look at C's picture.
#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float sA[TILE][TILE];
  __shared__ float sB[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float tmp = 0.0f;
  for (int m = 0; m < n / TILE; ++m) {
    sA[ty][tx] = A[row * n + m * TILE + tx];
    sB[ty][tx] = B[(m * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      tmp += sA[ty][k] * sB[k][tx];
    __syncthreads();
  }
  C[row * n + col] = tmp;
}
