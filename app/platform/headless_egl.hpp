// A GL context without a window, through EGL.
//
// On a machine with an NVIDIA GPU it uses the EGL device platform on the GPU that CUDA calls
// `cudaDevice`, so CUDA-OpenGL interop works on a server with no display. Elsewhere it takes Mesa
// (its software device, or the surfaceless platform). Rendering goes into a Framebuffer.
//
//   HeadlessContext ctx;
//   if (Status s = ctx.create(0); !s) { report(s); return; }
//   std::puts(ctx.description().c_str());   // "EGL device platform, NVIDIA H200 (NVIDIA ...)"
#pragma once

#include <string>

#include "common/non_copyable.hpp"
#include "common/status.hpp"

namespace cudalab {

class HeadlessContext : NonCopyable {
 public:
  ~HeadlessContext();

  // Creates the context and makes it current on this thread; `cudaDevice` < 0 means "any".
  Status create(int cudaDevice);
  // Which EGL platform and device, and the GL renderer string.
  const std::string& description() const { return description_; }
  // True when the context runs on an NVIDIA GPU (the EGL device carries a CUDA device id).
  bool onNvidiaDevice() const { return nvidia_; }
  // Forgets the context without a call into EGL (a context that stopped drawing can block its
  // clean-up for seconds); create() may follow. The driver frees it when the process ends.
  void abandon() { display_ = context_ = surface_ = nullptr; }

 private:
  void destroy();
  void* display_ = nullptr;
  void* context_ = nullptr;
  void* surface_ = nullptr;
  std::string description_;
  bool nvidia_ = false;
};

}  // namespace cudalab
