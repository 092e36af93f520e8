// The counter race (course file 004): every thread adds 1 to one counter.
// The app launches:  count_threads<<<grid, block>>>(counter)   with counter[0] = 0 first,
// 64 blocks of 64 threads, so the counter should end at 4,096. Run it several times.
extern "C" __global__ void count_threads(int* counter) {
  counter[0] += 1;  // read, add 1, write back: three steps other threads can come between
}
