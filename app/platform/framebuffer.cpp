#include "platform/framebuffer.hpp"

#include <string>

#include "platform/gl.hpp"

namespace cudalab {

Framebuffer::~Framebuffer() {
  release();
}

void Framebuffer::release() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (tex_) glDeleteTextures(1, &tex_);
  fbo_ = tex_ = 0;
  width_ = height_ = 0;
}

Status Framebuffer::resize(int width, int height, bool nearest) {
  if (width == width_ && height == height_ && fbo_) return {};
  release();
  GLint maxSize = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxSize);  // the target is a texture
  if (width <= 0 || height <= 0 || width > maxSize || height > maxSize) {
    return Status::error("An off-screen image of " + std::to_string(width) + "x" +
                         std::to_string(height) + " pixels is not possible here (the GL limit is " +
                         std::to_string(maxSize) + " pixels a side).");
  }
  glGenTextures(1, &tex_);
  glBindTexture(GL_TEXTURE_2D, tex_);
  while (glGetError() != GL_NO_ERROR) {
  }
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  if (glGetError() != GL_NO_ERROR) {
    release();
    return Status::error("There is not enough graphics memory for a " + std::to_string(width) +
                         "x" + std::to_string(height) + " off-screen image.");
  }
  const GLint filter = nearest ? GL_NEAREST : GL_LINEAR;
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  // Put back whatever framebuffer was bound: resize() may run in the middle of someone's frame.
  GLint previous = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex_, 0);
  const GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
  if (st != GL_FRAMEBUFFER_COMPLETE) {
    release();
    return Status::error("The off-screen framebuffer is incomplete (GL status " +
                         std::to_string(st) + ").");
  }
  width_ = width;
  height_ = height;
  return {};
}

void Framebuffer::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width_, height_);
}

void Framebuffer::unbind() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

Image Framebuffer::read() const {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
  Image img = readCurrentFramebuffer(width_, height_);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  return img;
}

Image readCurrentFramebuffer(int width, int height) {
  Image img;
  img.width = width;
  img.height = height;
  img.rgba.resize(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, img.rgba.data());
  flipVertically(img);
  return img;
}

}  // namespace cudalab
