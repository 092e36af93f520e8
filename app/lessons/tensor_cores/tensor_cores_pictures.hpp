// The tensor-cores lesson's pictures, computed on the CPU from the kernels' own models
// (kernels/tensor_cores/tensor_cores.hpp), so they work without a GPU:
//   drawFragments: which lane of a warp holds which elements of A, B and C for mma.sync m16n8k16,
//                  one lane picked out with its registers;
//   drawBanks:     the eight rows one ldmatrix reads, on the 32 banks of shared memory, for the
//                  tiles of A and B, without and with the swizzle, and the passes each read takes;
//   drawPipeline:  one block's loads and multiplies over time with 1 to 4 stages (a model).
#pragma once

#include "core/lesson.hpp"

namespace cudalab {

class TensorCoresPictures {
 public:
  void drawFragments(LessonContext& ctx);
  void drawBanks(LessonContext& ctx);
  void drawPipeline(LessonContext& ctx);

 private:
  int lane_ = 5;         // the lane picked out in the fragment picture
  int chunk_ = 0;        // the 16-byte chunk of the rows the bank picture reads
  int stages_ = 3;       // the pipeline picture's stages
  float loadRatio_ = 3;  // its load time per tile, in multiplies
};

}  // namespace cudalab
