#include "platform/allocator.hpp"

#include <malloc.h>

namespace cudalab {

bool tuneAllocator() {
  // Setting the threshold also stops glibc from raising it after a large free (and the trim
  // threshold with it), which is what let freed multi-MiB blocks stay in the arenas.
  const bool threshold = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kAllocatorMapThresholdBytes));
  const bool arenas = mallopt(M_ARENA_MAX, 1);
  return threshold && arenas;
}

}  // namespace cudalab
