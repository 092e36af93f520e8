// PyCUDA's first example (course file 001): dest[i] = a[i] * b[i].
// The app launches:  multiply_them<<<grid, block>>>(dest, a, b, n)
// This is the course's kernel. It works for 400 numbers in one block of 400 threads, as the course
// ran it. Now set N to 1,000,000: what goes wrong, and why can one block not hold them all?
extern "C" __global__ void multiply_them(float* dest, const float* a, const float* b, int n) {
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
