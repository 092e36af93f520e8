// How the app asks glibc's malloc to hand memory back, so that hours of use keep a flat resident
// size.
//
//   tuneAllocator();  // once, first thing in main(), before any thread starts
//
// The lessons' workers allocate host buffers whose sizes the learner chooses (a 2^27-element
// reduction, a 4096^3 matmul's matrices, a full-HD frame), on threads that come and go. Left to
// its defaults, glibc gives such threads arenas of their own and, once a large block has been
// freed, raises its mapping threshold to that size (up to 32 MiB) and its trim threshold to twice
// that: blocks up to that size then come from the arenas, and what is freed there stays resident
// (malloc_trim() releases free pages inside the arenas but trims the top only of the main one,
// and free() leaves up to the raised trim threshold at the top of the others).
// Measured on an H200 (seed 20261128, malloc's defaults, 9 minutes): with every lesson made
// afresh, malloc's live blocks stayed at 340 to 344 MiB from minute 3 on while the resident size
// rose from 781 to 863 MiB, nearly all of the measured rise in anonymous mappings. With one arena
// and a fixed 256 KiB threshold (set through GLIBC_TUNABLES, same seed, a 2.5-minute run), it read
// 619.2 to 619.5 MiB. So: one arena (the app's few threads rarely allocate at once), and blocks
// from 256 KiB up mapped on their own (unless a free chunk in the arena fits) and unmapped when
// freed. CUDALAB_MALLOC_DEFAULTS=1 leaves malloc's defaults, to compare.
#pragma once

#include <cstddef>

namespace cudalab {

// Blocks of this size and larger are mapped and unmapped by themselves.
inline constexpr std::size_t kAllocatorMapThresholdBytes = 256 * 1024;

// Returns false where CUDALAB_MALLOC_DEFAULTS=1 asked for the defaults or glibc refused a setting.
bool tuneAllocator();

}  // namespace cudalab
