// Whether the GPU tests run under compute-sanitizer (tools/sanitize.sh sets CUDALAB_SANITIZE=1).
//
// A sanitizer slows kernels ten- to a thousandfold (racecheck on shared-memory tiles the most),
// cannot profile with CUPTI and counts a fault made on purpose as an error. Under it the tests
// use smaller sizes that take the same code paths (odd edges, partial and full tiles), and skip
// what the plain GPU run covers: faults, endless loops and out-of-memory made on purpose.
#pragma once

#include <cstdlib>

namespace cudalab::testing_support {

inline bool underSanitizer() {
  const char* v = std::getenv("CUDALAB_SANITIZE");
  return v != nullptr && *v != '\0' && *v != '0';
}

// `normal` in a plain run, `small` under a sanitizer.
template <class T>
T sanitizerSized(T normal, T small) {
  return underSanitizer() ? small : normal;
}

}  // namespace cudalab::testing_support
