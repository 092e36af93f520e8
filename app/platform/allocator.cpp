#include "platform/allocator.hpp"

#include <malloc.h>

#include <cstdlib>
#include <string_view>

namespace cudalab {

bool tuneAllocator() {
  if (const char* d = std::getenv("CUDALAB_MALLOC_DEFAULTS"); d && std::string_view(d) == "1")
    return false;
  // Setting the threshold also stops glibc from raising it after a large free (and the trim
  // threshold with it), which is what let freed multi-MiB blocks stay in the arenas.
  const bool threshold = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kAllocatorMapThresholdBytes));
  const bool arenas = mallopt(M_ARENA_MAX, 1);
  return threshold && arenas;
}

}  // namespace cudalab
