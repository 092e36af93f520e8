// Which OpenGL draws the app's pictures, and a check that it really draws.
//
// Why there are two: on the lent H100 and H200 servers (driver 580.159.04), after any process
// makes an illegal address (an MMU fault, Xid 31), NVIDIA's OpenGL draws nothing in every process
// that also runs CUDA, for as long as the machine runs: new processes and those already drawing
// alike, with interop or without, whichever of CUDA and GL starts first (tools/gpu_probe.sh,
// docs/RELIABILITY.md). CUDA alone still works, and so does NVIDIA's OpenGL in a process without
// CUDA. So the app keeps CUDA on the GPU and draws with Mesa's software renderer (llvmpipe)
// instead; the kernels' pictures come through host memory (interop needs NVIDIA's OpenGL).
//
//   // In main, with the GL context current and CUDA's context made:
//   if (Status s = checkDrawing(); !s) { start again with CUDALAB_DRAWING=software; }
//
// The supervisor (commands/restart.hpp) chooses the path for each app it starts: GPU drawing
// first, software drawing after the GPU's drawing failed, no GPU at all only where software
// drawing fails too, no software renderer is installed, or after three GPU faults in a row.
#pragma once

#include <ctime>
#include <optional>
#include <string>

#include "common/status.hpp"

namespace cudalab {

enum class DrawingPath { Gpu, Software };

// The environment variable the supervisor sets for an app that must draw in software.
inline constexpr const char* kDrawingVariable = "CUDALAB_DRAWING";

// Software when CUDALAB_DRAWING starts with "software" (set by the supervisor, or by
// adoptRecordedDrawing() as "software-recorded"), else Gpu (which, without an NVIDIA GPU, is Mesa
// too). CUDALAB_DRAWING=gpu draws with the GPU and forgets the record below.
DrawingPath drawingPath();

// For a window: points GLX and EGL at Mesa's software renderer. Call before the window opens.
void prepareSoftwareDrawing();

// Where Mesa's EGL is declared to the EGL loader: the file named in __EGL_VENDOR_LIBRARY_FILENAMES
// (a GPU server, tools/gpu_mesa.sh), else the system's 50_mesa.json; "" when there is none.
std::string mesaEglVendorFile();

// Draws two known colours into a small off-screen framebuffer and reads each back: an error
// naming what came back when the GL context does not draw (needs a current context), or when a
// clear and its read take over 4 s (then the context is left as it is: start again). Otherwise
// puts back every binding and setting it changed (framebuffers, texture, pixel-pack buffer,
// viewport, clear colour, colour mask, scissor, rasterizer discard). It can still block inside the
// driver: callers watch it (commands/restart.cpp).
Status checkDrawing();

// [SECTION] What this machine's drawing is known to do
//
// Once NVIDIA's OpenGL has failed beside CUDA it stays broken until the GPU is reset, and finding
// it out again costs every new process seconds (a check that waits 4 s, a start again) and, on the
// H100, a context switch timeout (Xid 109) in the driver: a check can even pass in the first
// seconds after the fault and the drawing hang later. So the first process that finds it writes a
// record, and every later one on this machine, until it restarts, draws in software from its start:
//
//   rememberBrokenDrawing("the GPU's OpenGL drew nothing beside CUDA");  // where a check failed
//   if (std::optional<DrawingRecord> r = adoptRecordedDrawing()) ...      // in main, at start
//
// The record names this boot of the machine (/proc/sys/kernel/random/boot_id) and its NVIDIA GPUs;
// it lives in $XDG_RUNTIME_DIR (else the temporary folder) as cudalab-drawing-UID.txt, or where
// CUDALAB_DRAWING_RECORD says (tests). After a GPU reset, CUDALAB_DRAWING=gpu forgets it.
struct DrawingRecord {
  std::string why;     // what failed, as the process that found it said it
  std::time_t when{};  // when it was found
};

// The record's file.
std::string drawingRecordFile();

// Writes the record (what failed, now). Failures to write are ignored: the record only saves time.
// Not written while a test hook stands in for the failure (CUDALAB_TEST_DRAWING,
// CUDALAB_TEST_FIRST_PICTURE), unless CUDALAB_DRAWING_RECORD names the file (the tests of it).
void rememberBrokenDrawing(const std::string& why);

// This boot's record for these GPUs, if there is one.
std::optional<DrawingRecord> recordedBrokenDrawing();

// At a start, before any GL: with a record and nothing chosen yet, sets CUDALAB_DRAWING to
// "software-recorded" and returns the record; CUDALAB_DRAWING=gpu removes the record instead.
// Nothing with CUDA hidden (an app going on without the GPU draws with NVIDIA's OpenGL alone).
std::optional<DrawingRecord> adoptRecordedDrawing();

// The record that made this process draw in software, when it did (CUDALAB_DRAWING is
// "software-recorded"): for the status bar's sentence.
std::optional<DrawingRecord> drawingFromRecord();

// For tests, on machines without a GPU: CUDALAB_TEST_DRAWING=broken makes checkDrawing() fail on
// the GPU path (and run even without a GPU); broken-no-software also hides Mesa from an app that
// draws in software, as on a server without it.
bool drawingBreakSimulated();
bool softwareRendererHiddenForTest();

}  // namespace cudalab
