// The size sweep: every transfer mode and the CPU at one N, on the GPU or from the model.
#include <algorithm>
#include <memory>

#include "transfers/transfers.hpp"

namespace cudalab::transfers {

std::vector<long long> sweepSizes(long long maxN) {
  std::vector<long long> ns;
  const long long lo = static_cast<long long>(kTransferN.min);
  for (long long n = lo; n < maxN; n *= 4)
    ns.push_back(n);
  if (maxN >= lo) ns.push_back(maxN);
  return ns;
}

Result<CpuTiming> timeCpuOn(const TransferParams& p, TransferSession* session, unsigned seed,
                            int runs, const std::atomic<bool>* cancel) {
  if (session)
    return timeCpu(p, session->hostX(), session->hostY(), session->hostOut(), runs, cancel);
  const size_t n = static_cast<size_t>(std::max(p.n, 0LL));
  std::vector<float> x(n), y, out(n);
  fillRandom(x.data(), n, seed);
  if (transferOp(p.op).inputs > 1) {
    y.resize(n);
    fillRandom(y.data(), n, seed + 1);
  }
  return timeCpu(p, x.data(), y.empty() ? nullptr : y.data(), out.data(), runs, cancel);
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
  } else {
    pt.modelled = true;
    for (size_t m = 0; m < modes.size(); ++m) {
      pt.modeMs[m] = simulate(planMode(p, modes[m].mode), p, link).wallMs;
      pt.modeOk[m] = true;
    }
  }
  Result<CpuTiming> cpu = timeCpuOn(p, session.get(), 1234u, runs, cancel);
  if (!cpu) return cpu.status();
  pt.cpu = *cpu;
  return pt;
}

}  // namespace cudalab::transfers
