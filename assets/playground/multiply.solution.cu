// PyCUDA's first example (course file 001), for any N: dest[i] = a[i] * b[i].
// The app launches:  multiply_them<<<grid, block>>>(dest, a, b, n)
extern "C" __global__ void multiply_them(float* dest, const float* a, const float* b, int n) {
  // A block holds at most 1,024 threads, so large N needs many blocks: count them in.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dest[i] = a[i] * b[i];
}
