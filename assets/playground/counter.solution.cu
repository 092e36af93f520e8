// The counter race (course file 004), fixed with an atomic operation.
// The app launches:  count_threads<<<grid, block>>>(counter)   with counter[0] = 0 first.
extern "C" __global__ void count_threads(int* counter) {
  // atomicAdd reads, adds and writes back as one step no other thread can interrupt.
  atomicAdd(&counter[0], 1);
}
