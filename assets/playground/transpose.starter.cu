// A transpose through shared memory (course file 000, "trap 2: coalescing", B[x, y] = A[y, x]):
// out = the transpose of the n x n matrix `in`, both stored row by row.
// Reading a row of `in` is coalesced, but writing it as a column of `out` is not: each thread of
// a warp writes to a different row. So each 32 x 32 block reads a tile into shared memory with
// coalesced reads, then writes the tile's columns as rows of `out`, again coalesced.
// The app launches:  transpose<<<grid, block>>>(in, out, n)   with 32 x 32 blocks.
#define TILE 32
extern "C" __global__ void transpose(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;  // column of `in`
  int y = blockIdx.y * TILE + threadIdx.y;  // row of `in`
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  // Write the tile back, transposed.
  x = blockIdx.x * TILE + threadIdx.x;
  y = blockIdx.y * TILE + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
