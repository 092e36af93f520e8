// The reduction lesson's "one block's tree, level by level" panel: the step's shared-memory tree
// drawn slot by slot (which threads add, which warps diverge), its levels in a table, and one
// warp's lanes against the banks at the chosen level, from the tree model (no GPU needed).
#pragma once

#include <optional>
#include <utility>

#include "core/lesson.hpp"
#include "reduction/reduction.hpp"

namespace cudalab {

class ReductionTreePanel {
 public:
  void draw(LessonContext& ctx);
  // The tree's levels are playing one by one (the window draws every frame meanwhile).
  bool playing() const { return playing_; }

 private:
  void drawTreePicture(LessonContext& ctx, const reduction::TreeModel& m);
  void drawLevelTable(LessonContext& ctx, const reduction::TreeModel& m);
  void drawBanks(LessonContext& ctx, const reduction::TreeModel& m);

  int pictureStep_ = 0;
  int pictureBlock_ = 64;
  // The picture's model, built when the step or block changes (treeFor_), not every frame.
  std::optional<Result<reduction::TreeModel>> tree_;
  std::pair<reduction::StepId, int> treeFor_{reduction::StepId::Interleaved, 0};
  int level_ = 1;
  bool playing_ = false;
  double lastTick_ = 0;
};

}  // namespace cudalab
