// The size sweep: every transfer mode and the CPU at one N, on the GPU or from the model.
#include <algorithm>
#include <memory>

#include "transfers/transfers.hpp"

namespace cudalab {

std::vector<long long> sweepSizes(long long maxN) {
  std::vector<long long> ns;
  const long long lo = static_cast<long long>(kTransferN.min);
  for (long long n = lo; n < maxN; n *= 4)
    ns.push_back(n);
  if (maxN >= lo) ns.push_back(maxN);
  return ns;
}

Result<SizePoint> measureSize(const TransferParams& base, long long n, bool gpu,
                              const LinkModel& link, const std::atomic<bool>* cancel) {
  TransferParams p = base;
  p.n = n;
  CUDALAB_TRY(validate(p));
  // Enough repetitions for a stable median at small N, few where one run already takes long.
  const int runs = n <= (1 << 20) ? 7 : n <= (1 << 24) ? 5 : 3;
  SizePoint pt;
  pt.n = n;
  const auto modes = transferModes();
  std::vector<float> x, y, out;
  const float* hx = nullptr;
  const float* hy = nullptr;
  float* hout = nullptr;
  std::unique_ptr<TransferSession> session;
  if (gpu) {
    Result<std::unique_ptr<TransferSession>> s = TransferSession::create(p, 1234u);
    if (!s) return s.status();
    session = std::move(*s);
    for (size_t m = 0; m < modes.size(); ++m) {
      Result<PlanRun> r =
          session->run(planMode(p, modes[m].mode), RunOptions{1, runs, n <= (1 << 22)}, cancel);
      if (!r) return r.status();
      pt.modeMs[m] = r->wall.medianMs;
      pt.modeOk[m] = r->check.ok();
    }
    hx = session->hostX();
    hy = session->hostY();
    hout = session->hostOut();
  } else {
    pt.modelled = true;
    for (size_t m = 0; m < modes.size(); ++m) {
      pt.modeMs[m] = simulate(planMode(p, modes[m].mode), p, link).wallMs;
      pt.modeOk[m] = true;
    }
    const size_t count = static_cast<size_t>(n);
    x.resize(count);
    out.resize(count);
    fillRandom(x.data(), count, 1234u);
    if (transferOp(p.op).inputs > 1) {
      y.resize(count);
      fillRandom(y.data(), count, 1235u);
    }
    hx = x.data();
    hy = y.empty() ? nullptr : y.data();
    hout = out.data();
  }
  Result<CpuTiming> cpu = timeCpu(p, hx, hy, hout, runs, cancel);
  if (!cpu) return cpu.status();
  pt.cpu = *cpu;
  return pt;
}

}  // namespace cudalab
