// Doubling N numbers: out[i] = 2 * in[i] (course file 003, the 30-million example).
// The app launches:  double_it<<<grid, block>>>(in, out, n)
// Run it as it is, look at the picture, then make every element come out right.
extern "C" __global__ void double_it(const float* in, float* out, int n) {
  int i = threadIdx.x;  // which element is this thread's?
  out[i] = 2.0f * in[i];
}
