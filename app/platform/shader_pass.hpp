// Draws a data texture through one of the shaders in shaders/ into an RGBA picture that ImGui can
// show (ImGui::Image) and figure export can save.
//
//   ShaderPass ids;
//   CUDALAB_TRY(ids.init(shaders::ids_frag));
//   ids.render(keysTexture, w, h, [](unsigned prog) { glUniform1i(glGetUniformLocation(prog,
//   "mode"), 0); });
//   ImGui::Image(ids.textureId(), size);
#pragma once

#include <functional>

#include "common/non_copyable.hpp"
#include "common/status.hpp"
#include "platform/framebuffer.hpp"

namespace cudalab {

class ShaderPass : NonCopyable {
 public:
  ~ShaderPass();

  // Compiles shaders/fullscreen.vert with `fragmentSource`; a compile error comes back with the
  // driver's log.
  Status init(const char* fragmentSource);
  bool ready() const { return program_ != 0; }
  // Renders `source` (bound to texture unit 0, sampler uniform set to 0) into a width x height
  // RGBA8 picture; `setUniforms` sets the shader's own uniforms.
  Status render(unsigned source, int width, int height,
                const std::function<void(unsigned program)>& setUniforms);
  void* textureId() const;
  const Framebuffer& target() const { return target_; }

 private:
  unsigned program_ = 0, vao_ = 0;
  Framebuffer target_;
};

}  // namespace cudalab
