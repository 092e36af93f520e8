// Starting cudalab again after a sticky CUDA error (an illegal address, a trap).
//
// CUDA cannot go on in a process after such an error (common/device_fault.hpp), so the app
// replaces itself by a fresh one with the same lesson and parameters. main() uses it like this:
//
//   if (auto code = superviseRestart()) return *code;   // first thing in main()
//   rememberStartArgs(argc, argv);
//   ... make the shell ...
//   restoreFrom(options.restore, shell);                 // --restore FILE, given by a restart
//   ... each frame, before anything else touches GL:
//   if (restartNeeded(shell)) return restartAfterFault(shell);
#pragma once

#include <optional>
#include <string>

namespace cudalab {

class Shell;

// In the image that replaced a faulted process, before any CUDA or GL: runs the app in a child
// with a new process id and returns the child's exit code. nullopt in the child and in any normal
// start, which go on as usual.
std::optional<int> superviseRestart();

// The command line to start again with.
void rememberStartArgs(int argc, char** argv);

// Reads the state a faulted process left (empty: nothing to do) into the shell, and removes it.
void restoreFrom(const std::string& file, Shell& shell);

// A sticky error happened (noticed by the shell's last frame, or since).
bool restartNeeded(const Shell& shell);

// Saves the state and replaces this process by a fresh cudalab. Returns only if that failed,
// with the exit code.
int restartAfterFault(Shell& shell);

}  // namespace cudalab
