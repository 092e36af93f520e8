#include "platform/drawing_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "platform/gl.hpp"

namespace cudalab {

DrawingPath drawingPath() {
  const char* v = std::getenv(kDrawingVariable);
  return v && std::strncmp(v, "software", 8) == 0 ? DrawingPath::Software : DrawingPath::Gpu;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The record
// ---------------------------------------------------------------------------------------------

namespace {

constexpr const char* kFromRecord = "software-recorded";

std::string firstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// This boot of the machine and its NVIDIA GPUs (their UUIDs, as the driver lists them): a reboot
// or another set of GPUs makes an older record someone else's.
std::string machineKey() {
  std::string key = firstLine("/proc/sys/kernel/random/boot_id");
  std::vector<std::string> gpus;
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    std::ifstream in(d.path() / "information");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("GPU UUID:", 0) == 0) gpus.push_back(line.substr(9));
  }
  std::sort(gpus.begin(), gpus.end());
  for (const std::string& g : gpus)
    if (const size_t from = g.find_first_not_of(" \t"); from != std::string::npos) {
      key += ' ';
      key.append(g, from, std::string::npos);
    }
  return key;
}

bool testHookSet() {
  return std::getenv("CUDALAB_TEST_DRAWING") || std::getenv("CUDALAB_TEST_FIRST_PICTURE");
}

}  // namespace

std::string drawingRecordFile() {
  if (const char* f = std::getenv("CUDALAB_DRAWING_RECORD"); f && *f) return f;
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  std::error_code ec;
  const std::filesystem::path dir =
      runtime && *runtime && std::filesystem::is_directory(runtime, ec)
          ? std::filesystem::path(runtime)
          : std::filesystem::temp_directory_path(ec);
  return (dir / ("cudalab-drawing-" + std::to_string(getuid()) + ".txt")).string();
}

void rememberBrokenDrawing(const std::string& why) {
  const char* named = std::getenv("CUDALAB_DRAWING_RECORD");
  if (testHookSet() && !(named && *named)) return;
  const std::string file = drawingRecordFile();
  const std::string partial = file + "." + std::to_string(getpid());
  {
    std::ofstream out(partial);
    std::string oneLine = why;
    std::replace(oneLine.begin(), oneLine.end(), '\n', ' ');
    out << machineKey() << "\n" << std::time(nullptr) << "\n" << oneLine << "\n";
    if (!out) {
      std::remove(partial.c_str());
      return;
    }
  }
  chmod(partial.c_str(), 0600);
  std::error_code ec;
  std::filesystem::rename(partial, file, ec);  // whole or not at all, for a reader beside
  if (ec) std::remove(partial.c_str());
}

std::optional<DrawingRecord> recordedBrokenDrawing() {
  std::ifstream in(drawingRecordFile());
  std::string key, when, why;
  if (!std::getline(in, key) || !std::getline(in, when) || !std::getline(in, why)) return {};
  if (key != machineKey()) return {};
  DrawingRecord r;
  r.why = why;
  r.when = static_cast<std::time_t>(std::strtoll(when.c_str(), nullptr, 10));
  return r;
}

std::optional<DrawingRecord> adoptRecordedDrawing() {
  const char* hidden = std::getenv("CUDA_VISIBLE_DEVICES");
  if (hidden && !*hidden) return {};
  const char* chosen = std::getenv(kDrawingVariable);
  if (chosen && std::strcmp(chosen, "gpu") == 0) {
    std::error_code ec;
    std::filesystem::remove(drawingRecordFile(), ec);
    return {};
  }
  if (chosen && *chosen && std::strcmp(chosen, kFromRecord) != 0) return {};
  std::optional<DrawingRecord> r = recordedBrokenDrawing();
  if (r) setenv(kDrawingVariable, kFromRecord, 1);
  return r;
}

std::optional<DrawingRecord> drawingFromRecord() {
  const char* chosen = std::getenv(kDrawingVariable);
  if (!chosen || std::strcmp(chosen, kFromRecord) != 0) return {};
  return recordedBrokenDrawing();
}

std::string mesaEglVendorFile() {
  if (const char* listed = std::getenv("__EGL_VENDOR_LIBRARY_FILENAMES")) {
    const std::string all = listed;
    size_t start = 0;
    while (start <= all.size()) {
      const size_t end = std::min(all.find(':', start), all.size());
      const std::string f = all.substr(start, end - start);
      if (f.find("mesa") != std::string::npos) return f;
      start = end + 1;
    }
  }
  for (const char* dir : {"/usr/share/glvnd/egl_vendor.d", "/etc/glvnd/egl_vendor.d"}) {
    const std::string mesa = std::string(dir) + "/50_mesa.json";
    if (access(mesa.c_str(), R_OK) == 0) return mesa;
  }
  return "";
}

void prepareSoftwareDrawing() {
  // glvnd picks the GLX vendor from this name, and Mesa then renders with llvmpipe.
  setenv("__GLX_VENDOR_LIBRARY_NAME", "mesa", 1);
  setenv("LIBGL_ALWAYS_SOFTWARE", "1", 1);
  // A server's setup may name NVIDIA's EGL vendor alone (../shared/gpu/on-device.sh): add Mesa's.
  const char* only = std::getenv("__EGL_VENDOR_LIBRARY_FILENAMES");
  if (!only || std::strstr(only, "mesa")) return;
  if (const std::string mesa = mesaEglVendorFile(); !mesa.empty())
    setenv("__EGL_VENDOR_LIBRARY_FILENAMES", (std::string(only) + ":" + mesa).c_str(), 1);
}

bool drawingBreakSimulated() {
  const char* v = std::getenv("CUDALAB_TEST_DRAWING");
  return v && std::strncmp(v, "broken", 6) == 0;
}

bool softwareRendererHiddenForTest() {
  const char* v = std::getenv("CUDALAB_TEST_DRAWING");
  return v && std::strcmp(v, "broken-no-software") == 0;
}

Status checkDrawing() {
  constexpr int kSide = 8;
  // Longer than any clear of 64 pixels takes on a busy GPU (its kernels time-slice with the
  // drawing), short enough that a broken GPU does not keep a learner waiting.
  constexpr GLuint64 kWaitNs = 4'000'000'000;
  // Errors left by earlier GL calls are not this check's.
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  // What it changes, to put back.
  GLint oldDraw = 0, oldRead = 0, oldTex = 0, oldPack = 0, oldViewport[4] = {};
  GLfloat oldClear[4] = {};
  GLboolean oldMask[4] = {};
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &oldDraw);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &oldRead);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &oldTex);
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &oldPack);
  glGetIntegerv(GL_VIEWPORT, oldViewport);
  glGetFloatv(GL_COLOR_CLEAR_VALUE, oldClear);
  glGetBooleanv(GL_COLOR_WRITEMASK, oldMask);
  const GLboolean scissor = glIsEnabled(GL_SCISSOR_TEST);
  const GLboolean discard = glIsEnabled(GL_RASTERIZER_DISCARD);
  GLuint fbo = 0, tex = 0;
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kSide, kSide, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  Status result;
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    result = Status::error("OpenGL could not make a small framebuffer to draw into.");
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_RASTERIZER_DISCARD);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glViewport(0, 0, kSide, kSide);
  // Two colours, so that neither zeros nor what a broken context left behind can pass.
  const unsigned char colours[2][4] = {{51, 102, 204, 255}, {230, 25, 128, 255}};
  for (const auto& c : colours) {
    if (!result) break;
    glClearColor(c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, c[3] / 255.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    // A GPU that stopped drawing can hold a plain read for many seconds (15 s on an H100) before
    // it hands back zeros; a healthy one clears and reads 64 pixels in well under a millisecond. So
    // the read goes into a pixel buffer (it returns at once), a fence waits for it with a limit,
    // and past the limit this context is given up (the app starts again).
    GLuint pbo = 0;
    glGenBuffers(1, &pbo);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo);
    glBufferData(GL_PIXEL_PACK_BUFFER, kSide * kSide * 4, nullptr, GL_STREAM_READ);
    glReadPixels(0, 0, kSide, kSide, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    GLsync done = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    const GLenum waited = glClientWaitSync(done, GL_SYNC_FLUSH_COMMANDS_BIT, kWaitNs);
    if (waited == GL_TIMEOUT_EXPIRED || waited == GL_WAIT_FAILED)
      // Nothing more is asked of this context: cleaning up could block as long as the read.
      return Status::error(waited == GL_WAIT_FAILED
                               ? "OpenGL failed to wait for a small framebuffer to be read."
                               : "OpenGL did not clear and read back a small framebuffer "
                                 "within 4 s.");
    glDeleteSync(done);
    std::vector<unsigned char> got(kSide * kSide * 4, 0);
    if (const void* mapped =
            glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, kSide * kSide * 4, GL_MAP_READ_BIT)) {
      std::memcpy(got.data(), mapped, got.size());
      glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glDeleteBuffers(1, &pbo);
    int wrong = 0;
    for (int i = 0; i < kSide * kSide; ++i)
      wrong += std::memcmp(&got[static_cast<size_t>(i) * 4], c, 4) != 0;
    if (drawingBreakSimulated() && drawingPath() == DrawingPath::Gpu) {
      wrong = kSide * kSide;
      std::memset(got.data(), 0, got.size());
    }
    if (wrong) {
      char why[200];
      std::snprintf(why, sizeof why,
                    "OpenGL drew nothing: %d of %d pixels of a cleared framebuffer read back as "
                    "%d,%d,%d,%d instead of %d,%d,%d,%d.",
                    wrong, kSide * kSide, got[0], got[1], got[2], got[3], c[0], c[1], c[2], c[3]);
      result = Status::error(why);
    }
  }
  if (GLenum e = glGetError(); e != GL_NO_ERROR && result)
    result = Status::error("OpenGL failed to draw a cleared framebuffer (error " +
                           std::to_string(e) + ").");
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(oldDraw));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(oldRead));
  glDeleteFramebuffers(1, &fbo);
  glDeleteTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(oldTex));
  glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(oldPack));
  glViewport(oldViewport[0], oldViewport[1], oldViewport[2], oldViewport[3]);
  glClearColor(oldClear[0], oldClear[1], oldClear[2], oldClear[3]);
  glColorMask(oldMask[0], oldMask[1], oldMask[2], oldMask[3]);
  if (scissor) glEnable(GL_SCISSOR_TEST);
  if (discard) glEnable(GL_RASTERIZER_DISCARD);
  return result;
}

}  // namespace cudalab
