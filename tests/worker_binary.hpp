// The `cudalab` binary the worker tests start: beside the tests' folder in the build tree
// (build/cudalab for build/tests/...), wherever the tree was copied, or CUDALAB_BINARY.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "playground/worker.hpp"

inline std::string cudalabBinary() {
  if (const char* env = std::getenv("CUDALAB_BINARY")) return env;
  const std::filesystem::path beside =
      std::filesystem::path(cudalab::playground::selfExecutable()).parent_path().parent_path() /
      "cudalab";
  std::error_code ec;
  if (std::filesystem::exists(beside, ec)) return beside.string();
  return CUDALAB_BINARY;
}
