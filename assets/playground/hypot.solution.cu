// hypot with a grid-stride loop (course file 004): c[i] = sqrt(a[i]^2 + b[i]^2).
// The app launches:  hypot_stride<<<grid, block>>>(a, b, c, n)
extern "C" __global__ void hypot_stride(const float* a, const float* b, float* c, int n) {
  // The grid has fewer threads than elements: each thread starts at its own element and
  // jumps ahead by the number of threads in the whole grid until it passes the end.
  int start = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  for (int i = start; i < n; i += stride)
    c[i] = hypotf(a[i], b[i]);
}
