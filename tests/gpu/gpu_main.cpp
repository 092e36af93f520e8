// Entry point of the GPU tests: without a usable CUDA device, say why and exit 77, which ctest
// reports as "skipped" (SKIP_RETURN_CODE), so a machine without a GPU runs the suite cleanly.
#include <gtest/gtest.h>

#include <cstdio>

#include "common/runtime_info.hpp"

int main(int argc, char** argv) {
  cudalab::RuntimeInfo rt = cudalab::queryRuntime();
  if (!rt.hasDevice()) {
    std::printf("skipped: %s\n", rt.summary().c_str());
    return 77;
  }
  std::printf("%s\n", rt.summary().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
