// Entry point of the GPU tests: without a usable CUDA device, say why and exit 77, which ctest
// reports as "skipped" (SKIP_RETURN_CODE), so a machine without a GPU runs the suite cleanly.
//
// Where this machine's record says NVIDIA's OpenGL stopped drawing beside CUDA (a second run of
// the suite after the first one's illegal addresses), every test draws in software from the start,
// as the app does: a check made now could still pass and the drawing hang a minute later (the
// H100). Tests of NVIDIA's OpenGL itself then skip, saying so (tests/gpu/drawing.hpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>

#include "common/runtime_info.hpp"
#include "platform/drawing_path.hpp"

int main(int argc, char** argv) {
  cudalab::RuntimeInfo rt = cudalab::queryRuntime();
  if (!rt.hasDevice()) {
    std::printf("skipped: %s\n", rt.summary().c_str());
    return 77;
  }
  std::printf("%s\n", rt.summary().c_str());
  if (std::optional<cudalab::DrawingRecord> r = cudalab::adoptRecordedDrawing())
    std::printf(
        "drawing in software from the start: NVIDIA's OpenGL stopped drawing beside CUDA "
        "on this machine %.0f s ago (%s; recorded in %s)\n",
        std::difftime(std::time(nullptr), r->when), r->why.c_str(),
        cudalab::drawingRecordFile().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
