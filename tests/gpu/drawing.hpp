// A GL context for a GPU test, on whichever OpenGL still draws beside CUDA.
//
// After an illegal address in any process (the suite's own deliberate faults run last, in the
// ctests `gpu_traps` and `gpu_illegal_addresses`), NVIDIA's OpenGL on the lent H100 and H200 draws
// nothing in a process that also runs CUDA until the GPU is reset (app/platform/drawing_path.hpp).
// A second run of the suite on the same machine then finds it so. A test that only needs pictures
// goes on drawing in software, as the app does; a test of NVIDIA's OpenGL itself (its EGL device,
// CUDA-GL interop) skips with the reason, the kernel log's last Xid line included.
//
//   HeadlessContext gl;
//   CUDALAB_TEST_DRAWING(gl, testing_support::NeedsNvidiaGl::No);  // skips, or fails, saying why
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "common/runtime_info.hpp"
#include "platform/drawing_path.hpp"
#include "platform/headless_egl.hpp"

namespace cudalab::testing_support {

enum class NeedsNvidiaGl { No, Yes };

// The kernel log's last line about an Xid (the driver's word for a GPU error), when it can be read.
inline std::string lastXid() {
  std::string line;
  if (FILE* p = popen("dmesg 2>/dev/null | grep -i 'xid' | tail -1", "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p))
      line = buf;
    pclose(p);
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
    line.pop_back();
  return line.empty() ? "the kernel log shows no Xid" : "the kernel log's last Xid: " + line;
}

// Whether Mesa's EGL is there to draw in software (platform/drawing_path.hpp).
inline bool softwareRendererInstalled() {
  return !mesaEglVendorFile().empty();
}

// Makes `gl` current and checks it draws beside CUDA's context; "" when the test can go on,
// else why it must skip. A context that cannot be made at all is the test's failure: the returned
// sentence starts with "FAIL".
inline std::string testDrawing(HeadlessContext& gl, NeedsNvidiaGl needs) {
  if (Status s = gl.create(0); !s) return "FAIL: no GL context: " + s.sentence();
  if (Status s = makeDeviceContext(0); !s) return "FAIL: no CUDA context: " + s.sentence();
  if (drawingPath() == DrawingPath::Software && needs == NeedsNvidiaGl::Yes) {
    const std::optional<DrawingRecord> r = recordedBrokenDrawing();
    return "NVIDIA's OpenGL was found drawing nothing beside CUDA on this machine (" +
           (r ? r->why : std::string("by an earlier test")) +
           "), which lasts until the GPU is "
           "reset; this test needs it; " +
           lastXid();
  }
  const Status drew = checkDrawing();
  if (drew) return "";
  const std::string why =
      "NVIDIA's OpenGL draws nothing beside CUDA on this GPU (" + drew.sentence() +
      "), as after an illegal address in any process until the GPU is reset; " + lastXid();
  rememberBrokenDrawing("a GPU test's check: " + drew.sentence());  // later processes know
  if (needs == NeedsNvidiaGl::Yes) return why + ". This test needs NVIDIA's OpenGL.";
  setenv(kDrawingVariable, "software", 1);  // the rest of this process draws in software
  gl.abandon();
  if (Status s = gl.create(0); !s)
    return why + ". No software renderer can draw instead: " + s.sentence();
  std::printf("drawing in software from here on: %s\n", why.c_str());
  return "";
}

}  // namespace cudalab::testing_support

// Skips the test with the reason, or fails it when the context could not be made at all.
#define CUDALAB_TEST_DRAWING(gl, needs)                                          \
  do {                                                                           \
    const std::string why_ = ::cudalab::testing_support::testDrawing(gl, needs); \
    if (why_.rfind("FAIL", 0) == 0) FAIL() << why_;                              \
    if (!why_.empty()) GTEST_SKIP() << why_;                                     \
  } while (0)
