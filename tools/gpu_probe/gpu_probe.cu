// cudalab_gpu_probe: the smallest programs that show what a CUDA fault in one process does to the
// GPU's drawing in the next ones (docs/RELIABILITY.md, "A fault and the GPU's drawing"). It is not
// part of the app: tools/gpu_probe.sh runs it on a GPU machine, in fresh processes, before and
// after a fault, and reads the kernel log between the steps.
//
//   cudalab_gpu_probe fault illegal|trap [--egl]
//       A kernel writes to address 0x10 (an MMU fault, Xid 31) or calls __trap() (Xid 43); with
//       --egl the faulting process also holds an EGL context and has drawn with it.
//   cudalab_gpu_probe probe [--cuda] [--egl] [--interop] [--concurrent] [--egl-first] [--mesa]
//                           [--frames N | --seconds S] [--size N] [--timeout S]
//       --cuda: a CUDA context and a checked kernel; --egl: an EGL context on the NVIDIA device
//       (--mesa: Mesa's software device instead)
//       drawing N frames of a textured full-screen triangle into a size x size framebuffer, each
//       read back and checked; --interop: the texture comes from a pixel buffer a kernel wrote
//       through CUDA-GL interop (without it, with --cuda, through host memory); --concurrent:
//       kernels run on another thread all the while (the app's jobs beside its drawing);
//       --egl-first: EGL before CUDA (the app starts CUDA first).
//
// Prints one line, "ok ..." or "FAIL <phase>: <why>", and exits 0 (ok), 1 (failed), 2 (a phase
// hung past --timeout seconds) or 3 (usage).
#include <glad/egl.h>
#include <glad/gl.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  bool cuda = false, egl = false, interop = false, concurrent = false, eglFirst = false;
  bool mesa = false;
  int frames = 60, size = 1024;
  double seconds = 0;  // > 0: draw frames until this many seconds have passed
  double timeout = 20;
};

// The phase now running, for the watchdog's line.
std::atomic<const char*> g_phase{"start"};
std::atomic<double> g_phaseStart{0};
double g_start = 0;  // when the process began

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void phase(const char* name) {
  g_phase = name;
  g_phaseStart = now();
}

[[noreturn]] void fail(const std::string& why) {
  std::printf("FAIL %s: %s\n", g_phase.load(), why.c_str());
  std::fflush(stdout);
  _exit(1);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorName(e));
}

// A phase that blocks in the driver never returns: the watchdog says where and ends the process
// without running destructors (they would call into the same driver).
void startWatchdog(double timeout) {
  std::thread([timeout] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (now() - g_phaseStart.load() > timeout) {
        std::printf("HANG %s: no progress for %.0f s\n", g_phase.load(), timeout);
        std::fflush(stdout);
        _exit(2);
      }
    }
  }).detach();
}

__global__ void fillKernel(unsigned* out, int n, unsigned value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value ^ static_cast<unsigned>(i & 0xff);
}

__global__ void spinKernel(unsigned long long cycles, int* sink) {
  const unsigned long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(sink, 1);
}

__global__ void faultKernel(int* p, bool trap) {
  if (trap) __trap();
  *p = 1;
}

// ---- EGL and GL --------------------------------------------------------------------------------

struct Gl {
  EGLDisplay display = EGL_NO_DISPLAY;
  std::string what;
  GLuint program = 0, vao = 0, src = 0, fbo = 0, color = 0, pbo = 0;
};

bool hasExtension(const char* list, const char* name) {
  if (!list) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

EGLDisplay pickDisplay(bool mesa, std::string& what) {
  EGLint n = 0;
  if (!eglQueryDevicesEXT || !eglQueryDevicesEXT(0, nullptr, &n) || n <= 0) return EGL_NO_DISPLAY;
  std::vector<EGLDeviceEXT> devs(static_cast<size_t>(n));
  eglQueryDevicesEXT(n, devs.data(), &n);
  for (EGLDeviceEXT d : devs) {
    const char* ext = eglQueryDeviceStringEXT(d, EGL_EXTENSIONS);
    const bool nv = hasExtension(ext, "EGL_NV_device_cuda");
    const bool sw = hasExtension(ext, "EGL_MESA_device_software");
    if (mesa ? !sw : !nv) continue;
    what = nv ? "NVIDIA EGL device" : "Mesa software EGL device";
    return eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, d, nullptr);
  }
  return EGL_NO_DISPLAY;
}

GLuint compile(GLenum type, const char* text) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &text, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    fail(std::string("shader: ") + log);
  }
  return s;
}

void initGl(Gl& g, const Options& o) {
  phase("egl-init");
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) fail("libEGL.so.1 could not be loaded");
  g.display = pickDisplay(o.mesa, g.what);
  if (g.display == EGL_NO_DISPLAY)
    fail(o.mesa ? "no Mesa software EGL device" : "no NVIDIA EGL device");
  EGLint major = 0, minor = 0;
  if (!eglInitialize(g.display, &major, &minor)) fail("eglInitialize");
  gladLoadEGL(g.display, reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
  const EGLint attribs[] = {EGL_SURFACE_TYPE,
                            EGL_PBUFFER_BIT,
                            EGL_RENDERABLE_TYPE,
                            EGL_OPENGL_BIT,
                            EGL_RED_SIZE,
                            8,
                            EGL_GREEN_SIZE,
                            8,
                            EGL_BLUE_SIZE,
                            8,
                            EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(g.display, attribs, &config, 1, &count) ||
      count < 1)
    fail("no config");
  const EGLint ctxAttribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                               4,
                               EGL_CONTEXT_MINOR_VERSION,
                               5,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK,
                               EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                               EGL_NONE};
  EGLContext ctx = eglCreateContext(g.display, config, EGL_NO_CONTEXT, ctxAttribs);
  if (ctx == EGL_NO_CONTEXT) fail("eglCreateContext");
  const EGLint pb[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
  EGLSurface surf = eglCreatePbufferSurface(g.display, config, pb);
  if (!eglMakeCurrent(g.display, surf, surf, ctx)) fail("eglMakeCurrent");
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) fail("GL functions");

  phase("gl-setup");
  const char* vs =
      "#version 450 core\n"
      "out vec2 uv;\n"
      "void main() { vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n"
      "  uv = p; gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0); }\n";
  const char* fs =
      "#version 450 core\n"
      "in vec2 uv; out vec4 color; uniform sampler2D src;\n"
      "void main() { color = texture(src, uv); }\n";
  g.program = glCreateProgram();
  glAttachShader(g.program, compile(GL_VERTEX_SHADER, vs));
  glAttachShader(g.program, compile(GL_FRAGMENT_SHADER, fs));
  glLinkProgram(g.program);
  glGenVertexArrays(1, &g.vao);
  const int s = o.size;
  glGenTextures(1, &g.src);
  glBindTexture(GL_TEXTURE_2D, g.src);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, s, s);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glGenTextures(1, &g.color);
  glBindTexture(GL_TEXTURE_2D, g.color);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, s, s);
  glGenFramebuffers(1, &g.fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, g.fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g.color, 0);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) fail("framebuffer");
  glGenBuffers(1, &g.pbo);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, g.pbo);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(s) * s * 4, nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (GLenum e = glGetError(); e != GL_NO_ERROR) fail("GL error " + std::to_string(e));
}

// Draws the source texture into the framebuffer, reads it all back and checks it against `want`.
void drawAndCheck(Gl& g, const Options& o, const std::vector<unsigned>& want, int frame) {
  const int s = o.size;
  glBindFramebuffer(GL_FRAMEBUFFER, g.fbo);
  glViewport(0, 0, s, s);
  glClearColor(1, 0, 1, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  glUseProgram(g.program);
  glBindVertexArray(g.vao);
  glBindTexture(GL_TEXTURE_2D, g.src);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  std::vector<unsigned> got(static_cast<size_t>(s) * s);
  glReadPixels(0, 0, s, s, GL_RGBA, GL_UNSIGNED_BYTE, got.data());
  if (GLenum e = glGetError(); e != GL_NO_ERROR) fail("GL error " + std::to_string(e));
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    bad += got[i] != want[i];
  if (bad)
    fail("frame " + std::to_string(frame) + " (" + std::to_string(now() - g_start) + " s in): " +
         std::to_string(bad) + " of " + std::to_string(got.size()) + " pixels wrong (first " +
         std::to_string(got[0]) + ", want " + std::to_string(want[0]) + ")");
}

int runProbe(const Options& o) {
  g_start = now();
  startWatchdog(o.timeout);
  Gl g;
  unsigned* dev = nullptr;
  const int n = o.size * o.size;
  auto initCuda = [&] {
    phase("cuda-init");
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree(0)");
    check(cudaMalloc(&dev, static_cast<size_t>(n) * 4), "cudaMalloc");
  };
  if (o.cuda && !o.eglFirst) initCuda();
  if (o.egl) initGl(g, o);
  if (o.cuda && o.eglFirst) initCuda();

  cudaGraphicsResource* res = nullptr;
  if (o.interop) {
    phase("interop-register");
    check(cudaGraphicsGLRegisterBuffer(&res, g.pbo, cudaGraphicsRegisterFlagsWriteDiscard),
          "cudaGraphicsGLRegisterBuffer");
  }

  // Kernels beside the drawing, as the app's jobs run beside its frames.
  std::atomic<bool> stop{false};
  std::atomic<long> spins{0};
  std::atomic<int> spinError{0};
  std::thread spinner;
  if (o.concurrent && o.cuda) {
    spinner = std::thread([&] {
      cudaStream_t st = nullptr;
      int* sink = nullptr;
      if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess ||
          cudaMalloc(&sink, 4) != cudaSuccess) {
        spinError = 1;
        return;
      }
      while (!stop) {
        spinKernel<<<264, 256, 0, st>>>(2'000'000ull, sink);  // about 1 ms at 1.98 GHz
        if (cudaStreamSynchronize(st) != cudaSuccess) {
          spinError = static_cast<int>(cudaGetLastError());
          return;
        }
        ++spins;
      }
      cudaFree(sink);
      cudaStreamDestroy(st);
    });
  }

  std::vector<unsigned> want(static_cast<size_t>(n));
  const double start = now();
  int drawn = 0;
  for (int f = 0; o.seconds > 0 ? now() - start < o.seconds : f < (o.egl ? o.frames : 1); ++f) {
    const unsigned value = 0xff000000u | (0x10203u * static_cast<unsigned>(f + 1));
    for (int i = 0; i < n; ++i)
      want[static_cast<size_t>(i)] = value ^ static_cast<unsigned>(i & 0xff);
    if (o.cuda) {
      phase("kernel");
      unsigned* target = dev;
      size_t bytes = 0;
      if (res) {
        check(cudaGraphicsMapResources(1, &res, nullptr), "cudaGraphicsMapResources");
        check(cudaGraphicsResourceGetMappedPointer(reinterpret_cast<void**>(&target), &bytes, res),
              "cudaGraphicsResourceGetMappedPointer");
      }
      fillKernel<<<(n + 255) / 256, 256>>>(target, n, value);
      check(cudaGetLastError(), "fillKernel launch");
      if (res) {
        check(cudaGraphicsUnmapResources(1, &res, nullptr), "cudaGraphicsUnmapResources");
      } else {
        check(cudaDeviceSynchronize(), "fillKernel");
        std::vector<unsigned> host(static_cast<size_t>(n));
        check(cudaMemcpy(host.data(), dev, static_cast<size_t>(n) * 4, cudaMemcpyDeviceToHost),
              "cudaMemcpy");
        if (host != want) fail("the kernel's output is wrong");
      }
    }
    if (o.egl) {
      phase("upload");
      glBindTexture(GL_TEXTURE_2D, g.src);
      if (res) {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, g.pbo);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, o.size, o.size, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
      } else {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, o.size, o.size, GL_RGBA, GL_UNSIGNED_BYTE,
                        want.data());
      }
      phase("draw");
      drawAndCheck(g, o, want, f);
      ++drawn;
    }
  }
  const double seconds = now() - start;
  if (spinner.joinable()) {
    phase("spinner");
    stop = true;
    spinner.join();
    if (spinError)
      fail("the concurrent kernels failed: " +
           std::string(cudaGetErrorName(static_cast<cudaError_t>(spinError.load()))));
  }
  std::string beside;
  if (o.concurrent && o.cuda) beside = ", " + std::to_string(spins.load()) + " kernels beside";
  std::printf("ok: %s, %d frame(s) of %d x %d in %.2f s%s\n", o.egl ? g.what.c_str() : "no EGL",
              drawn, o.size, o.size, seconds, beside.c_str());
  std::fflush(stdout);
  _exit(0);  // no destructors: the same path a faulted app takes
}

int runFault(bool trap, bool egl) {
  Options o;
  startWatchdog(30);
  if (egl) {
    o.egl = true;
    o.size = 256;
    Gl g;
    initGl(g, o);
    std::vector<unsigned> want(static_cast<size_t>(o.size) * o.size, 0xff000000u);
    glBindTexture(GL_TEXTURE_2D, g.src);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, o.size, o.size, GL_RGBA, GL_UNSIGNED_BYTE, want.data());
    phase("draw");
    drawAndCheck(g, o, want, 0);
  }
  phase("fault");
  check(cudaSetDevice(0), "cudaSetDevice");
  faultKernel<<<1, 1>>>(reinterpret_cast<int*>(0x10), trap);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("fault %s%s: %s\n", trap ? "trap" : "illegal", egl ? " --egl" : "",
              cudaGetErrorName(e));
  std::fflush(stdout);
  _exit(e == cudaSuccess ? 1 : 0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "fault") == 0) {
    const bool trap = std::strcmp(argv[2], "trap") == 0;
    if (!trap && std::strcmp(argv[2], "illegal") != 0) return 3;
    return runFault(trap, argc > 3 && std::strcmp(argv[3], "--egl") == 0);
  }
  if (argc < 2 || std::strcmp(argv[1], "probe") != 0) {
    std::fprintf(stderr,
                 "usage: %s fault illegal|trap [--egl] | probe [options] (see the source)\n",
                 argv[0]);
    return 3;
  }
  Options o;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : "0"; };
    if (a == "--cuda")
      o.cuda = true;
    else if (a == "--egl")
      o.egl = true;
    else if (a == "--interop")
      o.interop = o.cuda = o.egl = true;
    else if (a == "--concurrent")
      o.concurrent = true;
    else if (a == "--egl-first")
      o.eglFirst = true;
    else if (a == "--mesa")
      o.mesa = true;
    else if (a == "--frames")
      o.frames = std::atoi(value());
    else if (a == "--seconds")
      o.seconds = std::atof(value());
    else if (a == "--size")
      o.size = std::atoi(value());
    else if (a == "--timeout")
      o.timeout = std::atof(value());
    else
      return 3;
  }
  if (o.size < 1 || o.frames < 1) return 3;
  return runProbe(o);
}
