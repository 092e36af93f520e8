// The histogram exercise (course file 004): count how many x fall in each of nbins equal bins
// between xmin and xmax, as the course's cpu_histogram does:
//     bin_width = (xmax - xmin) / nbins
//     bin = int((x - xmin) / bin_width); count it if 0 <= bin < nbins
// The app launches:  histogram<<<grid, block>>>(x, n, xmin, xmax, hist, nbins)
// with every hist[b] = 0 first; 128 blocks of 64 threads, as the course did.
extern "C" __global__ void histogram(const float* x, int n, float xmin, float xmax, int* hist,
                                     int nbins) {
  float bin_width = (xmax - xmin) / nbins;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int bin = (int)((x[i] - xmin) / bin_width);
    if (bin >= 0 && bin < nbins) hist[bin] += 1;
  }
}
