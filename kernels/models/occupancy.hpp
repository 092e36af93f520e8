// How many blocks of a kernel one SM holds at once, from its block size, registers per thread and
// shared memory per block: the CUDA occupancy calculator's arithmetic, in plain C++, so it can be
// shown (and tested) without a GPU. The GPU's own answer is
// cudaOccupancyMaxActiveBlocksPerMultiprocessor; the playground shows both.
//
//   SmModel sm;                                   // an H100's SM; or smModelFor(prop-like values)
//   BlockOccupancy o = blockOccupancy(256, 32, 0, sm);
//   o.blocksPerSM == 8, o.limiter == Limiter::Threads, o.occupancy == 1.0
#pragma once

#include <string>

namespace cudalab {

// One SM's resources. Defaults: compute capability 9.0 (H100).
struct SmModel {
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  int registersPerSM = 65536;
  int maxRegistersPerThread = 255;
  int registerUnit = 256;                   // registers are handed to warps in units of 256
  long long sharedPerSM = 233472;           // 228 KiB
  long long sharedPerBlockMax = 232448;     // 227 KiB with opt-in; 48 KiB without
  long long sharedReservedPerBlock = 1024;  // the system's share of every block
  long long sharedUnit = 128;
};

enum class Limiter { Threads, Blocks, Registers, Shared, None };
const char* limiterText(Limiter l);  // "threads per SM", "blocks per SM", "registers", ...

struct BlockOccupancy {
  int blocksPerSM = 0;
  int byThreads = 0, byBlocks = 0, byRegisters = 0, byShared = 0;
  Limiter limiter = Limiter::None;
  double occupancy = 0;             // resident warps / the most an SM holds
  long long registersPerBlock = 0;  // after rounding to the allocation unit
  long long sharedPerBlock = 0;     // after rounding, with the reserved share
};

BlockOccupancy blockOccupancy(int threadsPerBlock, int registersPerThread,
                              long long staticSharedBytes, const SmModel& sm);

}  // namespace cudalab
