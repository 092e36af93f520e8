// An element-wise function, like Numba's @vectorize (course file 000): write only f.
// The app applies it as float and as double and compares with sqrt(x*x + 1) - 1, exactly.
template <typename T>
__device__ T f(T x) {
  // sqrt(x^2 + 1) - 1 = x^2 / (sqrt(x^2 + 1) + 1): the same number, with no subtraction of
  // two nearly equal values, so nothing cancels.
  return x * x / (sqrt(x * x + T(1)) + T(1));
}
