#include "platform/shader_pass.hpp"

#include <cstdint>
#include <string>

#include "platform/gl.hpp"
#include "shaders.hpp"

namespace cudalab {
namespace {

Result<GLuint> compile(GLenum type, const char* src, const char* what) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    return Status::error(std::string("The ") + what + " shader did not compile: " + log);
  }
  return s;
}

}  // namespace

ShaderPass::~ShaderPass() {
  if (program_) glDeleteProgram(program_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
}

Status ShaderPass::init(const char* fragmentSource) {
  Result<GLuint> vs = compile(GL_VERTEX_SHADER, shaders::fullscreen_vert, "vertex");
  if (!vs) return vs.status();
  Result<GLuint> fs = compile(GL_FRAGMENT_SHADER, fragmentSource, "fragment");
  if (!fs) {
    glDeleteShader(*vs);
    return fs.status();
  }
  program_ = glCreateProgram();
  glAttachShader(program_, *vs);
  glAttachShader(program_, *fs);
  glLinkProgram(program_);
  glDeleteShader(*vs);
  glDeleteShader(*fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    glDeleteProgram(program_);
    program_ = 0;
    return Status::error(std::string("The shader program did not link: ") + log);
  }
  glGenVertexArrays(1, &vao_);  // core profile needs a bound VAO even without attributes
  return {};
}

Status ShaderPass::render(unsigned source, int width, int height,
                          const std::function<void(unsigned program)>& setUniforms) {
  if (!program_) return Status::error("The shader pass was not initialised.");
  GLint prevFb = 0, prevProgram = 0, prevVao = 0, prevTex = 0, prevActive = 0;
  GLint viewport[4];
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prevFb);  // before resize(), which binds its own
  CUDALAB_TRY(target_.resize(width, height, /*nearest=*/true));
  glGetIntegerv(GL_CURRENT_PROGRAM, &prevProgram);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &prevVao);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &prevActive);
  glGetIntegerv(GL_VIEWPORT, viewport);
  glActiveTexture(GL_TEXTURE0);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &prevTex);
  const GLboolean blend = glIsEnabled(GL_BLEND), scissor = glIsEnabled(GL_SCISSOR_TEST);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);

  target_.bind();
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT);
  glUseProgram(program_);
  glBindVertexArray(vao_);
  glBindTexture(GL_TEXTURE_2D, source);
  for (const char* name : {"keys", "field"}) {
    const GLint loc = glGetUniformLocation(program_, name);
    if (loc >= 0) glUniform1i(loc, 0);
  }
  if (setUniforms) setUniforms(program_);
  glDrawArrays(GL_TRIANGLES, 0, 3);

  // Put back what ImGui's renderer expects.
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(prevTex));
  glActiveTexture(static_cast<GLenum>(prevActive));
  glBindVertexArray(static_cast<GLuint>(prevVao));
  glUseProgram(static_cast<GLuint>(prevProgram));
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(prevFb));
  glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
  if (blend) glEnable(GL_BLEND);
  if (scissor) glEnable(GL_SCISSOR_TEST);
  if (GLenum e = glGetError(); e != GL_NO_ERROR)
    return Status::error("Drawing through the shader failed (GL error " + std::to_string(e) + ").");
  return {};
}

void* ShaderPass::textureId() const {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(target_.texture()));
}

}  // namespace cudalab
