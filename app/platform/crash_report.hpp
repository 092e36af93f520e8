// Where the app was when it ended on a fatal signal, or where it waits when asked, on stderr.
//
//   installCrashReport();                       // once, first thing in main()
//   setCrashContext("soak: memory, counters");  // what it is doing now, said with a crash
//
// A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) prints "cudalab: ended by signal N
// (NAME)", the context last set, and the stack of the thread that took the signal as
// `binary(+offset)` lines (`addr2line -Cfe build/cudalab OFFSET` names the app's own frames), then
// ends the process by the same signal, so its exit status is unchanged. Without it, a soak that
// crashes on the GPU machine leaves an empty log (as one did on an H200 after 18 minutes).
// SIGPIPE is ignored: a child process (the playground's worker, the counters helper) that dies
// while the app writes to it is a failed write the app reports, not the end of the app.
// `kill -USR2 <pid>` prints the stack of the thread that takes it the same way and carries on:
// where a process that seems stuck is waiting. StallWatch uses the same handler.
#pragma once

namespace cudalab {

void installCrashReport();

// The report's sentence starts and ends with these (for a parent that quotes a crashed child's
// sentence without its stack: the counters helper's).
inline constexpr const char* kCrashSentenceStart = "cudalab: ended by signal ";
inline constexpr const char* kCrashSentenceEnd = ". The thread that took it is here";

// Copied (up to 255 bytes); empty clears it. One thread sets it (the soak's, a helper's main): a
// crash on any thread says the last text set. Two threads setting it at once could garble it.
void setCrashContext(const char* text);

// Only the SIGUSR2 stack printer (installCrashReport includes it).
void printStackOnSigusr2();

}  // namespace cudalab
