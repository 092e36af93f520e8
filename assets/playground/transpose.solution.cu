// A transpose through shared memory (course file 000, B[x, y] = A[y, x]): out = the transpose of
// the n x n matrix `in`, both stored row by row, read and written with coalesced accesses.
// The app launches:  transpose<<<grid, block>>>(in, out, n)   with 32 x 32 blocks.
#define TILE 32
extern "C" __global__ void transpose(const float* in, float* out, int n) {
  // One column more than the tile: a column of the tile then falls in 32 different banks of
  // shared memory, so reading it back is not 32 accesses to one bank.
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;  // column of `in`
  int y = blockIdx.y * TILE + threadIdx.y;  // row of `in`
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  // Tile (bx, by) of `in` is tile (by, bx) of `out`: swap the blocks, keep threadIdx.x moving
  // along a row of `out` so that a warp writes 32 neighbours.
  x = blockIdx.y * TILE + threadIdx.x;  // column of `out`
  y = blockIdx.x * TILE + threadIdx.y;  // row of `out`
  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
