#include "models/occupancy.hpp"

#include <algorithm>
#include <climits>

#include "common/translatable.hpp"

namespace cudalab {

// Words the app shows (translated where it shows them).
const char* limiterText(Limiter l) {
  switch (l) {
    case Limiter::Threads:
      return N_("threads per SM");
    case Limiter::Blocks:
      return N_("blocks per SM");
    case Limiter::Registers:
      return N_("registers");
    case Limiter::Shared:
      return N_("shared memory");
    case Limiter::None:
      return N_("nothing (the block does not fit)");
  }
  return "";
}

BlockOccupancy blockOccupancy(int threadsPerBlock, int registersPerThread,
                              long long staticSharedBytes, const SmModel& sm) {
  BlockOccupancy o;
  if (threadsPerBlock <= 0) return o;
  const long long warps = (threadsPerBlock + 31) / 32;
  // Threads are scheduled in whole warps.
  o.byThreads = static_cast<int>(sm.maxThreadsPerSM / (warps * 32));
  o.byBlocks = sm.maxBlocksPerSM;
  // Registers: each warp's registers are rounded up to the allocation unit.
  const long long regs = std::max(registersPerThread, 1);
  const long long perWarp = (regs * 32 + sm.registerUnit - 1) / sm.registerUnit * sm.registerUnit;
  o.registersPerBlock = perWarp * warps;
  o.byRegisters =
      regs > sm.maxRegistersPerThread ? 0 : static_cast<int>(sm.registersPerSM / perWarp / warps);
  // Shared memory: rounded to its unit, plus the reserved share per block.
  const long long shared =
      (std::max(staticSharedBytes, 0LL) + sm.sharedUnit - 1) / sm.sharedUnit * sm.sharedUnit +
      sm.sharedReservedPerBlock;
  o.sharedPerBlock = shared;
  o.byShared =
      staticSharedBytes > sm.sharedPerBlockMax ? 0 : static_cast<int>(sm.sharedPerSM / shared);
  o.blocksPerSM = std::min({o.byThreads, o.byBlocks, o.byRegisters, o.byShared});
  if (o.blocksPerSM <= 0) {
    o.blocksPerSM = 0;
    o.limiter = Limiter::None;
  } else if (o.blocksPerSM == o.byRegisters && o.byRegisters < o.byThreads) {
    o.limiter = Limiter::Registers;
  } else if (o.blocksPerSM == o.byShared && o.byShared < o.byThreads) {
    o.limiter = Limiter::Shared;
  } else if (o.blocksPerSM == o.byThreads) {
    o.limiter = Limiter::Threads;
  } else {
    o.limiter = Limiter::Blocks;
  }
  o.occupancy = std::min(1.0, static_cast<double>(o.blocksPerSM * warps) /
                                  (static_cast<double>(sm.maxThreadsPerSM) / 32.0));
  return o;
}

}  // namespace cudalab
