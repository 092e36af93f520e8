// A row-wise softmax: out[r, j] = exp(in[r, j] - m) / (sum over k of exp(in[r, k] - m)) where m
// is the row's largest score. Subtracting m changes nothing in exact arithmetic (it cancels in
// the quotient) but keeps every exponential at most 1: exp(100) overflows float32 (its largest
// number is about 3.4e38 = exp(88.7)), exp(100 - 120) does not.
// Three passes over the row: its maximum, the sum of exponentials, the output.
// The app launches:  softmax_rows<<<n, 256>>>(in, out, n)
#define THREADS 256
extern "C" __global__ void softmax_rows(const float* in, float* out, int n) {
  __shared__ float part[THREADS];
  const float* x = in + (long long)blockIdx.x * n;
  float* y = out + (long long)blockIdx.x * n;
  // 1. The row's maximum.
  float m = -3.4e38f;  // below every score: float32's lowest number is about -3.4e38
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    m = fmaxf(m, x[j]);
  part[threadIdx.x] = m;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + stride]);
    __syncthreads();
  }
  m = part[0];
  __syncthreads();  // everyone has read the maximum before part[] is used again
  // 2. The sum of exp(x - m): every term in (0, 1], the largest exactly 1.
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    s += expf(x[j] - m);
  part[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] += part[threadIdx.x + stride];
    __syncthreads();
  }
  const float sum = part[0];
  // 3. The output.
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    y[j] = expf(x[j] - m) / sum;
}
