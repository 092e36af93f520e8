// `cudalab counters-helper`: the helper process's side of reading the GPU's counters
// (core/counters_helper.hpp says why the counters are read in a process of their own).
#include "commands/counters_helper.hpp"

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "core/counters_helper.hpp"
#include "platform/crash_report.hpp"
#include "playground/worker.hpp"

namespace cudalab {

using playground::Message;

int runCountersHelper(int inFd, int outFd) {
  // Never outlive the app: when it ends (even by SIGKILL) the request pipe closes, and this ends
  // the helper, even one waiting in the driver.
  std::thread([inFd] {
    for (;;) {
      pollfd pfd{inFd, 0, 0};
      if (::poll(&pfd, 1, 500) > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))) _exit(4);
    }
  }).detach();
  auto reply = [outFd](nlohmann::json head) {
    return playground::writeMessage(outFd, {std::move(head), {}}) ? 0 : 2;
  };
  auto error = [&](const std::string& sentence) {
    return reply({{"type", "error"}, {"message", sentence}});
  };
  Result<Message> req = playground::readMessage(inFd, playground::steadySeconds() + 30);
  if (!req) return 2;
  const std::string name = req->head.value("job", "");
  setCrashContext(("reading the counters of " + name).c_str());
  std::size_t bytes = 0;
  const CountersJobBytes* job = findCountersJob(name, &bytes);
  if (req->head.value("type", "") != "counters" || !job)
    return error("The counters' process has no job \"" + name + "\".");
  if (req->blobs.size() != 1 || req->blobs[0].size() != bytes)
    return error("The request for the counters of \"" + name +
                 "\" has parameters of the wrong size.");
  const CountersProgress progress = [&](float fraction, const std::string& what) {
    (void)playground::writeMessage(
        outFd, {{{"type", "progress"}, {"fraction", fraction}, {"what", what}}, {}});
  };
  Result<CountersReadings> r = (*job)(req->blobs[0], nullptr, progress);
  std::fflush(nullptr);
  if (!r) return error(r.status().sentence());
  nlohmann::json readings = nlohmann::json::array();
  for (const counters::StepReading& s : *r)
    readings.push_back(toJson(s));
  return reply({{"type", "readings"}, {"readings", readings}});
}

}  // namespace cudalab
