#include "platform/headless_egl.hpp"

#include <glad/egl.h>

#include <cstring>
#include <vector>

#include "platform/drawing_path.hpp"
#include "platform/gl.hpp"

namespace cudalab {
namespace {

bool hasExtension(const char* list, const char* name) {
  if (!list) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  }
  return false;
}

std::string eglErrorName(EGLint e) {
  switch (e) {
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
      return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
      return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
      return "EGL_BAD_PARAMETER";
    default:
      return "EGL error " + std::to_string(e);
  }
}

struct Candidate {
  EGLDisplay display;
  std::string what;
  bool nvidia;
};

// Candidate displays, best first: the NVIDIA EGL device whose CUDA id matches, other NVIDIA
// devices, other EGL devices (Mesa's software device), then Mesa's surfaceless platform and the
// default display.
std::vector<Candidate> candidateDisplays(int cudaDevice) {
  std::vector<Candidate> out, rest;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  // glvnd advertises EGL_EXT_device_base (enumeration and query together) rather than the two
  // separate extensions, so look at the entry points themselves.
  if (eglQueryDevicesEXT && eglQueryDeviceStringEXT && eglQueryDeviceAttribEXT &&
      eglGetPlatformDisplayEXT) {
    EGLint n = 0;
    eglQueryDevicesEXT(0, nullptr, &n);
    std::vector<EGLDeviceEXT> devs(static_cast<size_t>(n > 0 ? n : 0));
    if (n > 0 && eglQueryDevicesEXT(n, devs.data(), &n)) {
      for (EGLDeviceEXT d : devs) {
        const char* ext = eglQueryDeviceStringEXT(d, EGL_EXTENSIONS);
        EGLAttrib cudaId = -1;
        const bool nv = hasExtension(ext, "EGL_NV_device_cuda") &&
                        eglQueryDeviceAttribEXT(d, EGL_CUDA_DEVICE_NV, &cudaId);
        EGLDisplay disp = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, d, nullptr);
        if (disp == EGL_NO_DISPLAY) continue;
        if (nv) {
          Candidate c{disp, "EGL device platform, CUDA device " + std::to_string(cudaId), true};
          if (cudaDevice < 0 || cudaId == cudaDevice)
            out.push_back(c);
          else
            rest.insert(rest.begin(), c);
        } else {
          const bool sw = hasExtension(ext, "EGL_MESA_device_software");
          rest.push_back({disp,
                          sw ? "EGL device platform, Mesa software device" : "EGL device platform",
                          false});
        }
      }
    }
  }
  out.insert(out.end(), rest.begin(), rest.end());
  // Before a display is initialised glad knows only EGL 1.4, so platform displays come through
  // the EXT entry point.
  if (hasExtension(client, "EGL_MESA_platform_surfaceless") && eglGetPlatformDisplayEXT) {
    EGLDisplay d =
        eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY) out.push_back({d, "EGL surfaceless platform (Mesa)", false});
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (d != EGL_NO_DISPLAY) out.push_back({d, "EGL default display", false});
  return out;
}

}  // namespace

HeadlessContext::~HeadlessContext() {
  destroy();
}

void HeadlessContext::destroy() {
  if (!display_) return;
  EGLDisplay d = static_cast<EGLDisplay>(display_);
  eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (surface_) eglDestroySurface(d, static_cast<EGLSurface>(surface_));
  if (context_) eglDestroyContext(d, static_cast<EGLContext>(context_));
  eglTerminate(d);
  display_ = context_ = surface_ = nullptr;
}

Status HeadlessContext::create(int cudaDevice) {
  destroy();
  // Drawing in software (drawing_path.hpp): Mesa's devices only, even beside an NVIDIA GPU.
  const bool software = drawingPath() == DrawingPath::Software;
  if (software) prepareSoftwareDrawing();
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
    return Status::error(
        "Headless rendering needs EGL, but libEGL.so.1 could not be loaded (install libegl1 and a "
        "driver: Mesa's libegl-mesa0, or NVIDIA's).");
  }
  std::string tried;
  for (const Candidate& c : candidateDisplays(cudaDevice)) {
    if (software && (c.nvidia || softwareRendererHiddenForTest())) continue;
    EGLDisplay d = c.display;
    EGLint major = 0, minor = 0;
    if (!eglInitialize(d, &major, &minor)) {
      tried += "; " + c.what + ": " + eglErrorName(eglGetError());
      continue;
    }
    gladLoadEGL(d, reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
    const char* ext = eglQueryString(d, EGL_EXTENSIONS);
    const bool surfaceless = hasExtension(ext, "EGL_KHR_surfaceless_context");
    const EGLint configAttribs[] = {EGL_SURFACE_TYPE,
                                    EGL_PBUFFER_BIT,
                                    EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT,
                                    EGL_RED_SIZE,
                                    8,
                                    EGL_GREEN_SIZE,
                                    8,
                                    EGL_BLUE_SIZE,
                                    8,
                                    EGL_ALPHA_SIZE,
                                    8,
                                    EGL_NONE};
    EGLConfig config = nullptr;
    EGLint numConfigs = 0;
    if (!eglBindAPI(EGL_OPENGL_API) ||
        !eglChooseConfig(d, configAttribs, &config, 1, &numConfigs) || numConfigs < 1) {
      // Surfaceless displays may offer configs without the pbuffer bit.
      const EGLint anyAttribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
      if (!eglChooseConfig(d, anyAttribs, &config, 1, &numConfigs) || numConfigs < 1) {
        tried += "; " + c.what + ": no OpenGL config";
        eglTerminate(d);
        continue;
      }
    }
    EGLContext ctx = EGL_NO_CONTEXT;
    const EGLint versions[][2] = {{4, 5}, {3, 3}};
    for (const auto& v : versions) {
      const EGLint ctxAttribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                   v[0],
                                   EGL_CONTEXT_MINOR_VERSION,
                                   v[1],
                                   EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                   EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                   EGL_NONE};
      ctx = eglCreateContext(d, config, EGL_NO_CONTEXT, ctxAttribs);
      if (ctx != EGL_NO_CONTEXT) break;
    }
    if (ctx == EGL_NO_CONTEXT) {
      tried += "; " + c.what + ": no GL 3.3 core context (" + eglErrorName(eglGetError()) + ")";
      eglTerminate(d);
      continue;
    }
    EGLSurface surf = EGL_NO_SURFACE;
    if (!surfaceless) {
      const EGLint pb[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
      surf = eglCreatePbufferSurface(d, config, pb);
    }
    if (!eglMakeCurrent(d, surf, surf, ctx)) {
      tried += "; " + c.what + ": eglMakeCurrent failed (" + eglErrorName(eglGetError()) + ")";
      if (surf != EGL_NO_SURFACE) eglDestroySurface(d, surf);
      eglDestroyContext(d, ctx);
      eglTerminate(d);
      continue;
    }
    display_ = d;
    context_ = ctx;
    surface_ = surf;
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
      destroy();
      return Status::error("The GL functions could not be loaded through EGL (" + c.what + ").");
    }
    nvidia_ = c.nvidia;
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    if (software && (!renderer || std::strstr(renderer, "NVIDIA"))) {
      // The default display of a machine whose only EGL vendor is NVIDIA's.
      tried += "; " + c.what + ": NVIDIA's, not a software renderer";
      destroy();
      continue;
    }
    const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    description_ =
        c.what + ", " + (renderer ? renderer : "?") + ", OpenGL " + (version ? version : "?");
    return {};
  }
  if (software)
    return Status::error(
        "No software renderer could draw: Mesa's EGL (the packages libegl-mesa0 and "
        "libgl1-mesa-dri) is not installed or gave no OpenGL 3.3 core context" +
        (tried.empty() ? std::string(" (no EGL display found)") : tried) + ".");
  return Status::error("No EGL display could give an OpenGL 3.3 core context" +
                       (tried.empty() ? std::string(" (no EGL display found)") : tried) +
                       ". Install Mesa (libegl-mesa0, libgl1-mesa-dri) or an NVIDIA driver.");
}

}  // namespace cudalab
