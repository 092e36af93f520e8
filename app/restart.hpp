// Starting cudalab again after a sticky CUDA error (an illegal address, a trap).
//
// CUDA cannot go on in a process after such an error (common/device_fault.hpp). So the window and
// headless runs run the app in a child of a small supervisor that never touches CUDA or GL: a
// faulted app saves its lesson and parameters and ends, and the supervisor starts a fresh one with
// them. main() uses it like this:
//
//   rememberStartArgs(argc, argv);
//   ... parse the command line; for a window or headless run, before any CUDA, GL or thread:
//   if (auto code = superviseApp()) return *code;        // the supervisor ends here
//   ... make the shell ...
//   restoreFrom(options.restore, shell);                 // --restore FILE, given by a restart
//   ... each frame, before anything else touches GL:
//   if (restartNeeded(shell)) return restartAfterFault(shell);
//
// CUDALAB_NO_SUPERVISOR=1 runs the app in one process (for a debugger); a fault then replaces the
// process by a fresh image in place.
#pragma once

#include <optional>
#include <string>

namespace cudalab {

class Shell;

// The command line to start again with; call first in main().
void rememberStartArgs(int argc, char** argv);

// In a normal start: runs the app (this command line) in child processes, one after another while
// they end asking to start again, passes on the signals sent to this process (INT, TERM, HUP,
// QUIT, USR2), and returns the last one's exit code (or ends by its signal). nullopt in the app's
// own process and when CUDALAB_NO_SUPERVISOR is set, which go on as usual.
std::optional<int> superviseApp();

// Reads the state a faulted process left (empty: nothing to do) into the shell, and removes it.
void restoreFrom(const std::string& file, Shell& shell);

// A sticky error happened (noticed by the shell's last frame, or since).
bool restartNeeded(const Shell& shell);

// Saves the state and ends this process for its supervisor to start a fresh one (or, without a
// supervisor, replaces this process). Returns only if the state could not be saved, with the exit
// code.
int restartAfterFault(Shell& shell);

}  // namespace cudalab
