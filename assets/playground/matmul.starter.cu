// The naive matrix product (course file 001): C = A B for n x n matrices stored row by row.
// The course's Numba kernel: i, j = cuda.grid(2), one thread per element of C.
// The app launches:  matmul<<<grid, block>>>(A, B, C, n)   with 16 x 16 blocks.
// The course always used n a multiple of 16. Here n = 1000: run it and look at C's picture.
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // row of C
  int j = blockIdx.y * blockDim.y + threadIdx.y;  // column of C
  float tmp = 0.0f;
  for (int k = 0; k < n; ++k)
    tmp += A[i * n + k] * B[k * n + j];
  C[i * n + j] = tmp;
}
