// An element-wise function, like Numba's @vectorize (course file 000): write only f.
// The app applies it to N numbers x between 1e-8 and 1e4, once as float and once as double:
//     y[i] = f<float>(x[i])      y[i] = f<double>(x[i])
// and compares both with the exact value of sqrt(x*x + 1) - 1.
// When x is small, x*x + 1 is 1 plus a little, and subtracting 1 keeps only that little:
// the same cancellation as (x + 1) - 1 in float32. Look at the error plot, then rewrite f.
template <typename T>
__device__ T f(T x) {
  return sqrt(x * x + T(1)) - T(1);
}
