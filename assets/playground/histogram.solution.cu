// The histogram exercise (course file 004), with a grid-stride loop and atomic operations.
// The app launches:  histogram<<<grid, block>>>(x, n, xmin, xmax, hist, nbins)
extern "C" __global__ void histogram(const float* x, int n, float xmin, float xmax, int* hist,
                                     int nbins) {
  float bin_width = (xmax - xmin) / nbins;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int bin = (int)((x[i] - xmin) / bin_width);
    if (bin >= 0 && bin < nbins)
      atomicAdd(&hist[bin], 1);  // many threads add to the same bin at once
  }
}
