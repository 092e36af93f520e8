// Shared between the precision lesson's .cu files and its CPU reference; not a public header.
#pragma once

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "precision/precision.hpp"

namespace cudalab::precision::detail {

// Launches the fast-math float32 evaluation kernel (precision_fast.cu, compiled with
// --use_fast_math): dOut[(e * kFormulaCount + f) * n + i].
Status launchEvalFast(const double* dXs, int n, double* dOut, cudaStream_t stream);

// Sizes xs/value/exact for every precision and fills the exact values; values start as NaN.
Evaluation makeEvaluation(std::span<const double> xs);
// Marks the formulas that do not exist (PlusOne has no stable formula) as NaN.
void clearMissingFormulas(Evaluation& ev);

// The embedded PTX texts (generated at build time), or empty when the build has none.
std::string_view embeddedEvalPtx();
std::string_view embeddedFastPtx();

}  // namespace cudalab::precision::detail
