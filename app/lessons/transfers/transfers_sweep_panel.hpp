// The transfers lesson's panels below the modes: the size sweep (every mode and the CPU from
// N = 2^10 up to the chosen N, log-log, and from which N each mode pays off), the chain of k
// kernels with and without a round trip through the host around each, and the link's bandwidth
// (pageable against pinned copies, against the link's theoretical rate).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/async_job.hpp"
#include "core/lesson.hpp"
#include "lessons/transfers/transfers_modes_panel.hpp"
#include "transfers/transfers.hpp"

namespace cudalab {

// The copy ceilings: measured on this GPU, or the reference machine's without one.
struct TransfersLinkReport {
  bool measured = false;
  transfers::LinkModel model;  // bandwidths for the ceilings and the model's predictions
  std::optional<transfers::PcieLink> pcie;  // the link's theoretical rate, when sysfs says
  std::string device;                       // what measured it
};

// The chain of kernels, with a round trip around each and with the data left on the device.
struct TransfersChainReport {
  transfers::TransferParams p;
  bool modelled = false;
  TransfersModeResult trips, resident;
};

// What the size sweep panel draws: the points measured so far and how.
struct TransfersSweepView {
  const std::vector<transfers::SizePoint>& points;
  const transfers::TransferParams& params;  // what the sweep runs with (up to its N)
  std::optional<JobProgress> progress;      // while the sweep runs
  const Status& error;                      // why it stopped, if it failed
};

// The size sweep (drawn once it has points or runs); `markedMode` is the mode whose crossover is
// marked (the timeline's); `source` says what measured numbers come from (the GPU's name).
void drawTransfersSweep(LessonContext& ctx, const TransfersSweepView& sweep, int markedMode,
                        const char* source);

// The chain of kernels; `source` as for the sweep.
void drawTransfersChain(LessonContext& ctx, const TransfersChainReport& c, const char* source);

// The link's bandwidth: pageable against pinned copies each way.
void drawTransfersLink(LessonContext& ctx, const TransfersLinkReport& l);

}  // namespace cudalab
