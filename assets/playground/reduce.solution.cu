// A sum reduction (course file 002, after Mark Harris): each block adds its part of `in` in
// shared memory and writes one partial sum; the app adds the partial sums.
// The app launches:  sum_blocks<<<grid, block>>>(in, partial, n)   partial has gridDim.x places.
#define BLOCK 256
extern "C" __global__ void sum_blocks(const float* in, float* partial, int n) {
  __shared__ float s[BLOCK];
  int tid = threadIdx.x;
  // A grid-stride loop first, so any grid covers any n: each thread adds its own numbers.
  float mine = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    mine += in[i];
  s[tid] = mine;
  __syncthreads();
  // Halve the active threads each level; the last level (stride 1) adds s[1] into s[0].
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}
