// The matmul lesson's pictures, drawn without a GPU: how tiling works (one block's tiles of A and
// B at tile step m, the elements of C each thread owns, stepped or played) and the naive steps'
// reads through the memory lesson's sector view (one warp's request, lane by lane).
#pragma once

#include <memory>

#include "core/lesson.hpp"
#include "matmul/matmul.hpp"

namespace cudalab {

// Text the matmul lesson's panels share: "100%", "12.5%", "0.8%" (a decimal only where the value
// has one) and "48 KiB" ("-" for none).
std::string matmulPercent(double fraction);
std::string matmulKib(int bytes);

class MatmulPicturesPanel {
 public:
  MatmulPicturesPanel();
  ~MatmulPicturesPanel();
  // The pictures for M x N x K; `limits` (the device's, or every GPU's since Volta without one)
  // decide which tiles fit.
  void draw(LessonContext& ctx, bool gpu, int M, int N, int K, const matmul::BlockLimits& limits);
  // The tiling picture is stepping through K (the window draws every frame meanwhile).
  bool playing() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cudalab
