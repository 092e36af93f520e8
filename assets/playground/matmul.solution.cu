// The naive matrix product (course file 001): C = A B for n x n matrices stored row by row.
// The app launches:  matmul<<<grid, block>>>(A, B, C, n)
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // row of C
  int j = blockIdx.y * blockDim.y + threadIdx.y;  // column of C
  // The grid is rounded up to whole blocks: threads past the last row or column must not
  // read or write (the course's `if i < C.shape[0] and j < C.shape[1]`).
  if (i < n && j < n) {
    float tmp = 0.0f;
    for (int k = 0; k < n; ++k)
      tmp += A[i * n + k] * B[k * n + j];
    C[i * n + j] = tmp;
  }
}
