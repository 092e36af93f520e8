// The app's own row-wise softmax, timed beside the learner's in the softmax exercise (no library
// in the app's stack has one; cuDNN's is not a dependency).
//
// An online softmax (Milakov and Gimelshein, 2018): the learner's three passes over a row (its
// maximum, the sum of exponentials, the output) become two, because one pass keeps a running
// maximum m and a sum s of exp(x - m), and rescales s by exp(m_old - m_new) whenever the maximum
// grows. Two partial (m, s) pairs merge the same way, so the threads' pairs combine in a tree.
//
//   CUDALAB_TRY(launchOnlineSoftmax(x, y, n, n, stream));  // y: each row of x, softmaxed
#pragma once

#include <cuda_runtime.h>

#include "common/status.hpp"

namespace cudalab::playground {

// y = the softmax of each row of the rows x cols matrix x (row-major), one block per row.
// Checked; does not synchronise.
Status launchOnlineSoftmax(const float* x, float* y, int rows, int cols, cudaStream_t stream);

}  // namespace cudalab::playground
