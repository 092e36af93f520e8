// A sum reduction (course file 002, after Mark Harris): each block adds its part of `in` in
// shared memory and writes one partial sum; the app adds the partial sums, as the course's host
// code did. The shared array holds 256 numbers: use blocks of 256 threads.
// The app launches:  sum_blocks<<<grid, block>>>(in, partial, n)   partial has gridDim.x places.
#define BLOCK 256
extern "C" __global__ void sum_blocks(const float* in, float* partial, int n) {
  __shared__ float s[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 1; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}
