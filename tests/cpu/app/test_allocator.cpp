// The allocator's tuning: after tuneAllocator(), a freed large block goes back to the system even
// after a larger one was freed (glibc's defaults, which CUDALAB_MALLOC_DEFAULTS=1 keeps, would
// serve it from the heap), and threads share one arena. Each check runs in a fresh process (a death
// test), where nothing has allocated on other threads or freed large blocks before the tuning.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "platform/allocator.hpp"

namespace cudalab {
namespace {

size_t mappedBytes() {
  return mallinfo2().hblkhd;
}

// malloc_info's XML: one <heap nr="N"> per arena.
int arenas() {
  char* text = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&text, &size);
  malloc_info(0, f);
  std::fclose(f);
  int n = 0;
  for (const char* p = text; (p = std::strstr(p, "<heap nr=")) != nullptr; ++p)
    ++n;
  std::free(text);
  return n;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;  // AddressSanitizer has its own allocator
#else
constexpr bool kSanitized = false;
#endif

TEST(AllocatorDeathTest, AFreedBlockFromTheThresholdUpGoesBackEvenAfterALargerOneWasFreed) {
  if (kSanitized) GTEST_SKIP() << "AddressSanitizer replaces malloc";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (!tuneAllocator()) std::exit(3);
        // Under glibc's defaults, freeing this raises the mapping threshold to 24 MiB...
        void* big = std::malloc(24 << 20);
        static_cast<volatile char*>(big)[0] = 1;
        std::free(big);
        // ...and these 4 MiB would come from the heap and stay there when freed.
        const size_t before = mappedBytes();
        void* block = std::malloc(4 << 20);
        static_cast<volatile char*>(block)[0] = 1;
        if (mappedBytes() < before + (4 << 20)) std::exit(4);
        std::free(block);
        if (mappedBytes() != before) std::exit(5);
        // Below the threshold, a block comes from the arena as usual.
        void* small = std::malloc(kAllocatorMapThresholdBytes / 2);
        if (mappedBytes() != before) std::exit(6);
        std::free(small);
        std::exit(0);
      },
      testing::ExitedWithCode(0), "");
}

TEST(AllocatorDeathTest, MallocsDefaultsWhenAskedKeepAFreedBlockInTheHeap) {
  if (kSanitized) GTEST_SKIP() << "AddressSanitizer replaces malloc";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CUDALAB_MALLOC_DEFAULTS", "1", 1);
        if (tuneAllocator()) std::exit(3);
        void* big = std::malloc(24 << 20);
        static_cast<volatile char*>(big)[0] = 1;
        std::free(big);
        // glibc raised its threshold past 4 MiB: this block comes from the heap, not a mapping.
        const size_t before = mappedBytes();
        void* block = std::malloc(4 << 20);
        const bool mapped = mappedBytes() >= before + (4 << 20);
        std::free(block);
        std::exit(mapped ? 4 : 0);
      },
      testing::ExitedWithCode(0), "");
}

TEST(AllocatorDeathTest, ThreadsShareOneArena) {
  if (kSanitized) GTEST_SKIP() << "AddressSanitizer replaces malloc";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (!tuneAllocator()) std::exit(3);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
          threads.emplace_back([] {
            std::vector<std::string> keep;
            for (int i = 0; i < 1000; ++i)
              keep.emplace_back(100, 'x');
          });
        for (std::thread& t : threads)
          t.join();
        std::exit(arenas() == 1 ? 0 : 10 + arenas());
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cudalab
