// The tensor-cores ladder's Hopper steps (tensor_cores_hopper.cu, compiled for sm_90a alone).
#pragma once

#include "tensor_cores/tensor_cores.hpp"

namespace cudalab::tensor_cores {

// Whether this build compiled the Hopper kernels for sm_90a (kernels/CMakeLists.txt defines
// CUDALAB_SM90A where it did).
bool hopperCodeBuilt();

// One Hopper step on padded device buffers: A is M x K and Bt is B transposed, N x K, both in the
// 16-bit format f (M and N multiples of 128, K of 64); C is M x N float32. Checked, not
// synchronised.
Status launchHopperStep(StepId s, InputFormat f, const void* A, const void* Bt, float* C, int M,
                        int N, int K, cudaStream_t stream);

}  // namespace cudalab::tensor_cores
