// A row-wise softmax: out[r, j] = exp(in[r, j]) / (sum over k of exp(in[r, k])) for every row r
// of the n x n matrix `in`, stored row by row: what a classifier's last layer and attention do.
// One block per row; its threads share the row's work through shared memory.
// The app launches:  softmax_rows<<<n, 256>>>(in, out, n)
// The inputs are scores from -30 to 120. Run it: what is exp(100) in float32?
#define THREADS 256
extern "C" __global__ void softmax_rows(const float* in, float* out, int n) {
  __shared__ float part[THREADS];
  const float* x = in + (long long)blockIdx.x * n;
  float* y = out + (long long)blockIdx.x * n;
  // The sum of the exponentials, each thread over every 256th element, then a tree.
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += expf(x[j]);
  part[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] += part[threadIdx.x + stride];
    __syncthreads();
  }
  const float sum = part[0];
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = expf(x[j]) / sum;
}
