// CUDA-OpenGL interop: a kernel writes straight into a GL pixel buffer that becomes a texture,
// without a round trip through host memory.
//
// InteropImage is the RAII pair (pixel buffer registered with CUDA + texture). Each frame:
//
//   {
//     auto m = img.map(stream);              // MapGuard: device pointer, unmaps on scope exit
//     if (!m) return m.status();
//     myKernel<<<..., stream>>>(m->pixels()); // write width*height pixels
//   }                                          // unmapped here
//   CUDALAB_TRY(img.upload(stream));           // pixel buffer -> texture
//   ImGui::Image(img.textureId(), size);
//
// When interop is not available (another GPU drives the display, the GL context is not on the CUDA
// device, Mesa), or when the learner switches to Path::HostCopy to compare, map() hands out a
// device staging buffer instead and upload() copies it through host memory. Both paths produce
// identical textures; frameCostMs() says what the last upload cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/non_copyable.hpp"
#include "common/cuda_raii.hpp"
#include "common/status.hpp"

typedef struct CUstream_st* cudaStream_t;
struct cudaGraphicsResource;

namespace cudalab {

enum class PixelFormat { RGBA8, R32UI, R32F };  // 4 bytes a pixel in every format
enum class InteropPath { Interop, HostCopy };

class InteropImage : NonCopyable {
 public:
  ~InteropImage();

  // Creates the GL objects (needs a current GL context) and tries to register the pixel buffer
  // with CUDA; when that fails the image still works through the host-copy path.
  Status create(int width, int height, PixelFormat format);
  void destroy();
  int width() const { return width_; }
  int height() const { return height_; }
  size_t bytes() const { return static_cast<size_t>(width_) * height_ * 4; }

  bool interopAvailable() const { return resource_ != nullptr; }
  // Why interop is not available ("" when it is).
  const std::string& interopProblem() const { return problem_; }
  void setPath(InteropPath p) { requested_ = p; }
  InteropPath path() const {
    return interopAvailable() && requested_ == InteropPath::Interop ? InteropPath::Interop
                                                                    : InteropPath::HostCopy;
  }

  class MapGuard {
   public:
    MapGuard(MapGuard&& o) noexcept;
    MapGuard& operator=(MapGuard&&) = delete;
    MapGuard(const MapGuard&) = delete;
    ~MapGuard();
    void* pixels() const { return ptr_; }
    template <class T>
    T* as() const {
      return static_cast<T*>(ptr_);
    }

   private:
    friend class InteropImage;
    MapGuard(InteropImage* img, void* ptr) : img_(img), ptr_(ptr) {}
    InteropImage* img_;
    void* ptr_;
  };

  // A device pointer to width*height pixels for this frame.
  Result<MapGuard> map(cudaStream_t stream);
  // Brings the pixels written through the last map into the texture. Waits for `stream`.
  Status upload(cudaStream_t stream);
  // Uploads pixels computed on the CPU (no GPU needed): the path pictures from CPU models take.
  Status uploadFromHost(const void* pixels);
  // The texture, for ImGui::Image or a shader.
  unsigned texture() const { return tex_; }
  void* textureId() const { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(tex_)); }
  // Milliseconds the last upload took on the host clock, including the GPU work it waited for.
  double frameCostMs() const { return lastCostMs_; }
  // Reads the texture back (tests compare the two paths with it).
  std::vector<std::uint8_t> readTexture() const;

 private:
  void unmap();
  int width_ = 0, height_ = 0;
  PixelFormat format_ = PixelFormat::RGBA8;
  unsigned pbo_ = 0, tex_ = 0;
  cudaGraphicsResource* resource_ = nullptr;
  bool mapped_ = false;
  cudaStream_t mapStream_ = nullptr;
  DeviceArray<unsigned char> staging_;      // device buffer for the host-copy path
  PinnedArray<unsigned char> hostStaging_;  // pinned host buffer for the host-copy path
  // The pixel buffer's and texture's bytes, counted in heldDeviceBytes() while they live, when
  // they are on the CUDA device (registered); 0 otherwise.
  long long glDeviceBytes_ = 0;
  InteropPath requested_ = InteropPath::Interop;
  std::string problem_;
  double lastCostMs_ = 0;
  double mapStartMs_ = 0;
};

}  // namespace cudalab
