// Shared between summation.cu and summation_ref.cpp; not a public header.
#pragma once

#include <span>
#include <vector>

#include "common/status.hpp"
#include "precision/summation.hpp"

namespace cudalab::precision::detail {

// Defined in summation.cu (it needs CUDA): the tree order's sum of every prefix x[0, sizes[k]),
// computed on the GPU with x copied to the device once.
Result<std::vector<float>> sumTreeGpuPrefixes(std::span<const float> x,
                                              std::span<const size_t> sizes, TreeShape t);

}  // namespace cudalab::precision::detail
