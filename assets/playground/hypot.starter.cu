// hypot with a grid-stride loop (course file 004): c[i] = sqrt(a[i]^2 + b[i]^2).
// The app launches a small, fixed grid, as the course did: 128 blocks of 64 threads (8,192
// threads) for 1,000,000 numbers.
// The app launches:  hypot_stride<<<grid, block>>>(a, b, c, n)
extern "C" __global__ void hypot_stride(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = hypotf(a[i], b[i]);
}
