// Doubling N numbers: out[i] = 2 * in[i] (course file 003, the 30-million example).
// The app launches:  double_it<<<grid, block>>>(in, out, n)
extern "C" __global__ void double_it(const float* in, float* out, int n) {
  // Each thread's element: the blocks before this one, then the thread's place in its block.
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // The last block usually has threads past the end of the array: they must do nothing.
  if (i < n) out[i] = 2.0f * in[i];
}
