#include "platform/interop.hpp"

#include "platform/gl.hpp"  // before cuda_gl_interop.h, which must not pull in the system GL header

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <utility>

#include "common/cuda_check.hpp"
#include "platform/drawing_path.hpp"

namespace cudalab {
namespace {

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct GlFormat {
  GLint internal;
  GLenum format, type;
};

GlFormat glFormat(PixelFormat f) {
  switch (f) {
    case PixelFormat::R32UI:
      return {GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT};
    case PixelFormat::R32F:
      return {GL_R32F, GL_RED, GL_FLOAT};
    case PixelFormat::RGBA8:
      break;
  }
  return {GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE};
}

}  // namespace

InteropImage::~InteropImage() {
  destroy();
}

void InteropImage::destroy() {
  unmap();
  if (resource_) cudaGraphicsUnregisterResource(resource_);
  staging_.reset();
  hostStaging_.reset();
  if (glDeviceBytes_) {
    heldDeviceBytes() -= glDeviceBytes_;
    --heldDeviceBuffers();
  }
  glDeviceBytes_ = 0;
  resource_ = nullptr;
  if (pbo_) glDeleteBuffers(1, &pbo_);
  if (tex_) glDeleteTextures(1, &tex_);
  pbo_ = tex_ = 0;
  width_ = height_ = 0;
}

Status InteropImage::create(int width, int height, PixelFormat format) {
  destroy();
  GLint maxTex = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxTex);
  if (width <= 0 || height <= 0 || width > maxTex || height > maxTex)
    return Status::error("An image of " + std::to_string(width) + "x" + std::to_string(height) +
                         " pixels does not fit a GL texture here (at most " +
                         std::to_string(maxTex) + " a side).");
  width_ = width;
  height_ = height;
  format_ = format;
  const GlFormat f = glFormat(format);
  glGenTextures(1, &tex_);
  glBindTexture(GL_TEXTURE_2D, tex_);
  // Integer textures cannot be filtered; nearest keeps one element one pixel for every format.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexImage2D(GL_TEXTURE_2D, 0, f.internal, width, height, 0, f.format, f.type, nullptr);
  glGenBuffers(1, &pbo_);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes()), nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  if (glGetError() != GL_NO_ERROR) {
    destroy();
    return Status::error("The GL texture or pixel buffer could not be created.");
  }
  // Drawing in software (drawing_path.hpp): Mesa's context is not CUDA's to register.
  if (drawingPath() == DrawingPath::Software) {
    resource_ = nullptr;
    problem_ =
        "The pictures are drawn by Mesa's software renderer (the GPU's OpenGL stopped drawing "
        "beside CUDA): frames are copied through host memory instead.";
    return {};
  }
  // Registration fails when the GL context is not on a CUDA device (Mesa, or another GPU drives
  // the display): not an error, the host-copy path takes over.
  cudaError_t e =
      cudaGraphicsGLRegisterBuffer(&resource_, pbo_, cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    cudaGetLastError();
    resource_ = nullptr;
    problem_ = std::string("CUDA cannot use this GL context (") + cudaGetErrorName(e) +
               "): frames are copied through host memory instead.";
  } else {
    problem_.clear();
    // Registered, so the buffer and the texture are in the CUDA device's memory.
    glDeviceBytes_ = 2 * static_cast<long long>(bytes());
    heldDeviceBytes() += glDeviceBytes_;
    ++heldDeviceBuffers();
  }
  return {};
}

InteropImage::MapGuard::MapGuard(MapGuard&& o) noexcept : img_(o.img_), ptr_(o.ptr_) {
  o.img_ = nullptr;
}

InteropImage::MapGuard::~MapGuard() {
  if (img_) img_->unmap();
}

void InteropImage::unmap() {
  if (mapped_ && resource_) cudaGraphicsUnmapResources(1, &resource_, mapStream_);
  mapped_ = false;
}

Result<InteropImage::MapGuard> InteropImage::map(cudaStream_t stream) {
  if (!tex_) return Status::error("The image has not been created.");
  mapStartMs_ = nowMs();
  if (path() == InteropPath::Interop) {
    CUDALAB_CUDA_TRY(cudaGraphicsMapResources(1, &resource_, stream));
    mapped_ = true;
    mapStream_ = stream;
    void* ptr = nullptr;
    size_t size = 0;
    cudaError_t e = cudaGraphicsResourceGetMappedPointer(&ptr, &size, resource_);
    if (e != cudaSuccess) {
      unmap();
      return cudaStatus(e, "cudaGraphicsResourceGetMappedPointer(&ptr, &size, resource_)", __FILE__,
                        __LINE__);
    }
    return MapGuard(this, ptr);
  }
  if (!staging_.get()) CUDALAB_TRY(staging_.allocate(bytes()));
  if (!hostStaging_.get()) CUDALAB_TRY(hostStaging_.allocate(bytes()));
  return MapGuard(nullptr, staging_.get());
}

Status InteropImage::upload(cudaStream_t stream) {
  const GlFormat f = glFormat(format_);
  glBindTexture(GL_TEXTURE_2D, tex_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  if (path() == InteropPath::Interop) {
    // The unmap (MapGuard) ordered CUDA's writes before GL's use of the buffer.
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, f.format, f.type, nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  } else {
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(hostStaging_.get(), staging_.get(), bytes(),
                                     cudaMemcpyDeviceToHost, stream));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, f.format, f.type, hostStaging_.get());
  }
  glBindTexture(GL_TEXTURE_2D, 0);
  glFinish();  // the cost shown to the learner includes the GL upload itself
  lastCostMs_ = nowMs() - mapStartMs_;
  if (GLenum e = glGetError(); e != GL_NO_ERROR)
    return Status::error("Uploading the frame to its texture failed (GL error " +
                         std::to_string(e) + ").");
  return {};
}

Status InteropImage::uploadFromHost(const void* pixels) {
  if (!tex_) return Status::error("The image has not been created.");
  const GlFormat f = glFormat(format_);
  glBindTexture(GL_TEXTURE_2D, tex_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, f.format, f.type, pixels);
  glBindTexture(GL_TEXTURE_2D, 0);
  if (GLenum e = glGetError(); e != GL_NO_ERROR)
    return Status::error("Uploading the picture failed (GL error " + std::to_string(e) + ").");
  return {};
}

std::vector<std::uint8_t> InteropImage::readTexture() const {
  std::vector<std::uint8_t> out(bytes());
  const GlFormat f = glFormat(format_);
  glBindTexture(GL_TEXTURE_2D, tex_);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, f.format, f.type, out.data());
  glBindTexture(GL_TEXTURE_2D, 0);
  return out;
}

}  // namespace cudalab
