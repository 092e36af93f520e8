// The stencil lesson: a stream of camera frames filtered on the GPU inside the course's 33 ms
// budget (course file 000), with the blur's ladder of kernels measured and checked.
//
// [SECTION] Frames and filters  frame sizes, the blur ladder's table (UI, bench and tests), the
//                               pipeline the learner toggles, Gaussian weights, validation
// [SECTION] Tile model          one block's tile and halo: loads, reads per input pixel, overhead
// [SECTION] CPU                 the same filters on the CPU (the reference, and the 33 ms story)
// [SECTION] GPU                 FrameRunner (one frame through the pipeline into a display
//                               buffer, every stage timed) and the measurements
//
// Typical use (the panel, on the UI thread that owns the display buffer):
//
//   FrameRunner runner;                         CUDALAB_TRY(runner.prepare(1920, 1080));
//   CUDALAB_TRY(runner.run(pipeline, frameNo, mappedRgba, stream));   // enqueues, times stages
//   ... next frame: runner.lastTimes() holds the previous frame's stage times
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/params.hpp"
#include "common/table.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"
#include "stencil/stencil_ops.cuh"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab::stencil {

using Progress = std::function<void(float fraction, const std::string& what)>;

// ---------------------------------------------------------------------------------------------
// [SECTION] Frames and filters
// ---------------------------------------------------------------------------------------------

struct FrameSize {
  int width, height;
  const char* label;
};
inline constexpr FrameSize kFrameSizes[] = {{1280, 720, "1280 x 720"},
                                            {1920, 1080, N_("1920 x 1080 (full HD)")},
                                            {3840, 2160, "3840 x 2160"}};

enum class BlurId { Naive, Tiled, Separable, SeparableShared };
// The variants that stage a tile and its halo in shared memory (the tile size applies to them).
bool usesTile(BlurId id);
struct BlurInfo {
  BlurId id;
  const char* key;
  const char* label;
  int colour;
  const char* help;  // what was wrong with the previous step and what this one changes
};
extern const KeyedTable<BlurInfo> kBlurTable;  // common/table.hpp
CUDALAB_KEYED_LOOKUPS(kBlurTable, blurs, blurInfo, blurByKey)

inline constexpr int kMaxRadius = 15;
inline constexpr ParamSpec kRadius{
    .id = "radius",
    .label = "Blur radius",
    .min = 1,
    .max = kMaxRadius,
    .defaultValue = 3,
    .unit = "px",
    .help =
        "The Gaussian blur reads every pixel within this distance: a square of (2r + 1)^2 pixels "
        "for each output pixel."};
inline constexpr int kTiles[] = {8, 16, 32};

// The filters the learner chains, in this order: blur, Sobel edges, threshold.
struct Pipeline {
  bool blur = true;
  BlurId blurId = BlurId::Separable;
  int radius = 3;
  int tile = 16;  // the tiled blur's block: tile x tile threads, one output pixel each
  bool sobel = true;
  bool threshold = true;
  float thresholdValue = 0.35f;  // edge magnitude counted as an edge
  View view = View::Mask;
  int split = -1;  // display column where the output starts (-1: the middle)
  bool operator==(const Pipeline&) const = default;
};

// The Gaussian's weights for radius r (sigma = r / 2), normalised to sum 1: 2r + 1 of them for
// the separable passes, and their products (2r + 1)^2 for the 2D kernels, in float.
std::vector<float> gaussian1d(int radius);
std::vector<float> gaussian2d(int radius);

// Bytes of shared memory the tiled blur's block needs: (tile + 2r)^2 float4 pixels.
long long tiledSharedBytes(int tile, int radius);
// The same for any variant: the tile, plus the row pass's (tile + 2r) x tile results for the
// separable one in shared memory; 0 for the variants without a tile.
long long sharedBytes(BlurId id, int tile, int radius);
// Refuses a radius, a tile or a frame that cannot run, with the numbers: a tile plus its halo
// larger than the shared memory a block may have (`sharedLimit` bytes), or a frame too large for
// the free device memory.
Status validate(const Pipeline& p, int width, int height, long long sharedLimit,
                long long freeBytes = -1);

// ---------------------------------------------------------------------------------------------
// [SECTION] Tile model
// ---------------------------------------------------------------------------------------------

struct TileModel {
  int tile = 16, radius = 3;
  long long loadsPerBlock = 0;        // (tile + 2r)^2 pixels loaded into shared memory
  long long outputsPerBlock = 0;      // tile^2
  double haloOverhead = 0;            // loads / outputs - 1
  double naiveReadsPerPixel = 0;      // (2r + 1)^2: each input pixel read by that many threads
  double tiledReadsPerPixel = 0;      // (tile + 2r)^2 / tile^2: loads per block over outputs
  double separableReadsPerPixel = 0;  // 2 (2r + 1): a row pass and a column pass
  long long sharedBytes = 0;
};
TileModel tileModel(int tile, int radius);
// How many blocks load input pixel (x, y): 1 inside a tile, 2 in an edge's halo, 4 in a
// corner's, and more when the halo is wider than half a tile (2r > tile): for the picture.
int loadsOfPixel(int x, int y, int tile, int radius);

// ---------------------------------------------------------------------------------------------
// [SECTION] CPU
// ---------------------------------------------------------------------------------------------

// A frame of float RGBA pixels on the host, row by row.
struct HostFrame {
  int width = 0, height = 0;
  std::vector<float4> px;
  float4 at(int x, int y) const { return px[size_t(y) * size_t(width) + size_t(x)]; }
};
HostFrame sceneFrame(int width, int height, int frame, int threads = 0);
// An RGBA8 picture (an image file) scaled to the frame size, nearest pixel.
HostFrame fromRgba8(const std::uint32_t* rgba, int srcW, int srcH, int width, int height);

// The CPU's filters, each exactly what its kernel computes (stencil_ops.cuh). `threads` 1 for
// one core, 0 for all; `cancel` stops them between rows (the result is then incomplete). They
// are the bit-exact reference, scalar and without fused operations: an optimised CPU filter
// (vector instructions, FMA) would be several times faster.
HostFrame cpuBlur(const HostFrame& in, BlurId id, int radius, int threads = 1,
                  const std::atomic<bool>* cancel = nullptr);
std::vector<float> cpuSobel(const HostFrame& in, int threads = 1,
                            const std::atomic<bool>* cancel = nullptr);
std::vector<float> cpuThreshold(const std::vector<float>& edges, float t);
// The whole pipeline into display pixels; `ms` gets each stage's wall time (blur, sobel,
// threshold, compose).
struct CpuFrame {
  std::vector<std::uint32_t> rgba;
  double blurMs = 0, sobelMs = 0, thresholdMs = 0, composeMs = 0;
  double totalMs() const { return blurMs + sobelMs + thresholdMs + composeMs; }
};
CpuFrame cpuPipeline(const HostFrame& in, const Pipeline& p, int threads,
                     const std::atomic<bool>* cancel = nullptr);

// ---------------------------------------------------------------------------------------------
// [SECTION] GPU
// ---------------------------------------------------------------------------------------------

// The GPU time of one frame's stages (CUDA events), ms.
struct FrameTimes {
  double input = 0, blur = 0, sobel = 0, threshold = 0, compose = 0;
  double gpuTotal() const { return input + blur + sobel + threshold + compose; }
};

// One frame size's buffers and the pipeline's launches. Not thread-safe: one thread (the UI's,
// which owns the display buffer) calls it.
class FrameRunner {
 public:
  FrameRunner();
  ~FrameRunner();
  FrameRunner(const FrameRunner&) = delete;
  FrameRunner& operator=(const FrameRunner&) = delete;

  Status prepare(int width, int height);
  int width() const;
  int height() const;
  long long sharedLimit() const;  // shared memory a block may have on this device (bytes)
  // Use a still picture (already at the frame size) instead of the synthetic scene; empty: the
  // scene again.
  Status setStill(const std::vector<std::uint32_t>& rgba);
  bool hasStill() const;
  // Enqueues one frame on `stream`: the input (scene kernel or the still picture), the filters,
  // and the display pixels into `rgbaOut` (width x height, device memory: the mapped pixel
  // buffer). Stage times of this frame are read at the next call (or by waitTimes()).
  Status run(const Pipeline& p, int frame, std::uint32_t* rgbaOut, cudaStream_t stream);
  // The stage times of the last frame whose events have completed.
  const FrameTimes& lastTimes() const;
  // Waits for the last frame and reads its times (tests, the benchmark).
  Status waitTimes();
  // Copies the last frame's stages back (tests): input, blurred, edges, mask.
  Status download(HostFrame& input, HostFrame& blurred, std::vector<float>& edges,
                  std::vector<float>& mask, cudaStream_t stream);

 private:
  struct Impl;
  Impl* impl_;
};

// Per blur variant and radius at one frame size: the median kernel time, pixels per second and
// effective GB/s (the frame read once and written once), against a device copy of the frame.
struct KernelPoint {
  BlurId id;
  int radius = 0;
  int tile = 0;
  double ms = 0;
  double gpixPerS = 0;
  double gbps = 0;
  bool ok = false;  // equal to the CPU's result, bit for bit, on a 97 x 61 frame
};
struct KernelReport {
  int width = 0, height = 0;
  int tile = 0;                     // the tiled kernels' tile size, as asked
  double copyMs = 0, copyGBps = 0;  // device-to-device copy of one float4 frame (read + write)
  double sobelMs = 0, thresholdMs = 0, composeMs = 0, sceneMs = 0;
  std::vector<KernelPoint> points;
  std::string device;
};
// Every variant at every radius in `radii` (checked against the CPU once per variant and radius
// on a smaller frame first), at `width` x `height`.
Result<KernelReport> measureKernels(int width, int height, const std::vector<int>& radii, int tile,
                                    const std::atomic<bool>* cancel, const Progress& progress);
std::vector<int> defaultRadii();  // 1 to 15

// ---------------------------------------------------------------------------------------------
// [SECTION] The panel's choices
// ---------------------------------------------------------------------------------------------

// What the lesson's panel chooses besides its numbers, for presets and plans: a choice's value is
// the index of its option in the panel's order (the registry test checks each range against the
// options its binding lists).
inline constexpr ParamSpec kFrameChoice{.id = "frame",
                                        .label = "Frame",
                                        .min = 0,
                                        .max = 2,
                                        .defaultValue = 1,
                                        .help =
                                            "The frame's size: 1280 x 720, full HD (the course's "
                                            "1920 x 1080 in 33 ms) or 3840 x 2160."};

inline constexpr ParamSpec kBlurChoice{.id = "blur",
                                       .label = "Blur",
                                       .min = 0,
                                       .max = 1,
                                       .defaultValue = 1,
                                       .help = "Whether the frame is blurred first."};

inline constexpr ParamSpec kBlurIdChoice{
    .id = "blur_kernel",
    .label = "Blur kernel",
    .min = 0,
    .max = 3,
    .defaultValue = 2,
    .help =
        "Which blur: naive 2D, a shared-memory tile with its halo, separable passes, or separable "
        "in shared memory."};

inline constexpr ParamSpec kTileChoice{
    .id = "tile",
    .label = "Tile",
    .min = 0,
    .max = 2,
    .defaultValue = 1,
    .help = "The tiled blurs' block: tile x tile threads, one pixel each."};

inline constexpr ParamSpec kSobelChoice{.id = "sobel",
                                        .label = "Sobel edges",
                                        .min = 0,
                                        .max = 1,
                                        .defaultValue = 1,
                                        .help = "Whether Sobel's edge filter runs after the blur."};

inline constexpr ParamSpec kThresholdChoice{
    .id = "threshold",
    .label = "Threshold",
    .min = 0,
    .max = 1,
    .defaultValue = 1,
    .help = "Whether the edges are thresholded into a mask."};

inline constexpr ParamSpec kViewChoice{.id = "show",
                                       .label = "Show",
                                       .min = 0,
                                       .max = 3,
                                       .defaultValue = 3,
                                       .help = "Which stage the picture shows right of the split."};

// The lesson's parameter table: every number its panel edits (Lesson::parameters()).
inline constexpr ParamSpec kStencilParams[] = {kRadius};

}  // namespace cudalab::stencil
