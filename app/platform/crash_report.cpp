#include "platform/crash_report.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace cudalab {
namespace {

// Async-signal-safe writing: write(2) only.
void writeAll(const char* s) {
  for (size_t n = std::strlen(s); n > 0;) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void writeNumber(int v) {
  char buf[16];
  int i = sizeof buf - 1;
  buf[i] = '\0';
  unsigned u = v < 0 ? 0u - static_cast<unsigned>(v) : static_cast<unsigned>(v);
  do {
    buf[--i] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u > 0 && i > 1);
  if (v < 0) buf[--i] = '-';
  writeAll(buf + i);
}

// strsignal is not async-signal-safe.
const char* signalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "segmentation fault";
    case SIGBUS:
      return "bus error";
    case SIGILL:
      return "illegal instruction";
    case SIGFPE:
      return "arithmetic exception";
    case SIGABRT:
      return "aborted";
    default:
      return "signal";
  }
}

// Two buffers, switched by an index, so that a crash during setCrashContext reads a whole text.
char gContext[2][256];
std::atomic<int> gContextIndex{0};

void printStackHere() {
  void* frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
}

// Runs on the UI thread, interrupted wherever it waits: only async-signal-safe calls (backtrace
// was called once before, so it does not load libgcc here).
void onSigusr2(int) {
  const int savedErrno = errno;  // the interrupted code may be about to read it
  writeAll("stall: the UI thread is here (innermost first):\n");
  printStackHere();
  writeAll("stall: end of stack\n");
  errno = savedErrno;
}

void onFatal(int sig, siginfo_t* info, void*) {
  // The unwinder takes locks and stderr may be a full pipe: should the report itself hang, the
  // process still ends (by SIGALRM) rather than staying up half dead.
  alarm(10);
  writeAll(kCrashSentenceStart);
  writeNumber(sig);
  writeAll(" (");
  writeAll(signalName(sig));
  writeAll(")");
  const char* context = gContext[gContextIndex.load() & 1];
  if (context[0] != '\0') {
    writeAll(" while ");
    writeAll(context);
  }
  writeAll(kCrashSentenceEnd);
  writeAll(" (innermost first):\n");
  printStackHere();
  writeAll("cudalab: end of stack\n");
  // SA_RESETHAND put the default action back. A fault raised by an instruction (si_code > 0)
  // faults again when the handler returns, so the process ends by it with the faulting frame on
  // top of a core dump; a signal that was sent (kill, raise, abort) is sent again.
  if (info && info->si_code > 0 && sig != SIGABRT) return;
  raise(sig);
}

// A stack overflow leaves no room for the handler on the thread's own stack. Only the thread that
// installs the report (main's: the UI thread) gets this one; an overflow on a job's thread still
// ends the process by SIGSEGV, without the report.
alignas(16) char gAltStack[64 * 1024];

}  // namespace

void printStackOnSigusr2() {
  void* warm[2];
  (void)backtrace(warm, 2);
  struct sigaction sa {};
  sa.sa_handler = onSigusr2;
  sa.sa_flags = SA_RESTART;  // the interrupted wait carries on
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR2, &sa, nullptr);
}

void installCrashReport() {
  printStackOnSigusr2();
  stack_t ss{};
  ss.ss_sp = gAltStack;
  ss.ss_size = sizeof gAltStack;
  sigaltstack(&ss, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
#if !defined(__SANITIZE_ADDRESS__)
  // (Under AddressSanitizer its own report of a fault, with the bad address's story, is better.)
  struct sigaction sa {};
  sa.sa_sigaction = onFatal;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
    sigaction(sig, &sa, nullptr);
#endif
}

void setCrashContext(const char* text) {
  const int next = (gContextIndex.load() + 1) & 1;
  std::strncpy(gContext[next], text ? text : "", sizeof gContext[next] - 1);
  gContext[next][sizeof gContext[next] - 1] = '\0';
  gContextIndex.store(next);
}

}  // namespace cudalab
