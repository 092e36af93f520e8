// One warp's request to global memory, drawn: the 32 lanes above, the 128-byte lines and 32-byte
// sectors they touch below, and an arrow from each lane to the bytes it asked for. The memory
// lesson draws any pattern with it; the matmul lesson draws its naive steps' reads of A and B.
//
//   const WarpRequest r = warpRequest(PatternId::MatmulA, params, warp, k);
//   drawWarpPicture(ctx.theme, ctx.scale, r, analyzeGlobal(r));
#pragma once

#include <imgui.h>

#include "models/memory_access.hpp"

namespace cudalab {

class Theme;

// Each 128-byte line gets its own colour; grey is left for lanes that take no part.
ImU32 lineColour(int i, float alpha = 1.0f);

// Draws at the cursor across the available width and moves the cursor below the picture and its
// one-line legend. `scale` multiplies hand-made sizes (LessonContext::scale).
void drawWarpPicture(const Theme& theme, float scale, const mem::WarpRequest& r,
                     const mem::GlobalAccess& g);

}  // namespace cudalab
