// A runtime that says there is no device, for tests of the shell: every lesson then draws from its
// CPU references and models, so a test sees the same on any machine (with a GPU, measured numbers
// such as frame costs differ from run to run).
#pragma once

#include "common/runtime_info.hpp"

inline cudalab::RuntimeInfo withoutGpu() {
  cudalab::RuntimeInfo rt;
  rt.status = cudalab::Status::error("hidden from this test");
  return rt;
}
