// `cudalab counters-helper`: started by the app (core/counters_helper.hpp's measureInHelper), it
// reads one request on `inFd`, runs the job the request names (registered by a lesson's counters
// panel), writes progress and the readings on `outFd`, and returns the exit code.
#pragma once

namespace cudalab {

int runCountersHelper(int inFd, int outFd);

}  // namespace cudalab
