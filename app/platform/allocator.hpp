// How the app asks glibc's malloc to hand memory back, so that hours of use keep a flat resident
// size.
//
//   tuneAllocator();  // once, first thing in main(), before any thread starts
//
// The lessons' workers allocate host buffers whose sizes the learner chooses (a 2^27-element
// reduction, a 4096^3 matmul's matrices, a full-HD frame), on threads that come and go. Left to
// its defaults, glibc gives each such thread an arena of its own and, once a large block has been
// freed, serves blocks up to that size (up to 32 MiB) from the arenas instead of mapping them. The
// freed memory then stays in the arenas, split around what is still alive, where malloc_trim()
// cannot return it. Measured on an H200 (same seed, every lesson made afresh before each
// reading): malloc's live blocks stayed at 343 MiB while the resident size rose from 690 to
// 863 MiB in 9 minutes; with one arena and a fixed 256 KiB mapping threshold it stayed at
// 619.2 to 619.5 MiB. So: one arena (the app's few threads rarely allocate at once), and every
// block from 256 KiB up is mapped on its own and unmapped when freed.
#pragma once

#include <cstddef>

namespace cudalab {

// Blocks of this size and larger are mapped and unmapped by themselves.
inline constexpr std::size_t kAllocatorMapThresholdBytes = 256 * 1024;

// Returns false where glibc refused a setting (the process keeps malloc's defaults).
bool tuneAllocator();

}  // namespace cudalab
