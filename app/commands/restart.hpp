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
//   ... once its first whole picture is drawn (before a swap), when firstPictureWatched():
//   if (auto code = checkFirstPicture(shell, options.restore, picture, headless)) return *code;
//   ... once the GL context and the shell are made, and after another process of the app faulted
//   (takeOtherProcessFault()):
//   if (auto code = checkDrawingBesideCuda(shell, gpu)) return *code;
//
// A fault can also take the GPU's drawing down with it (measured on the lent H100 and H200: after
// an illegal address in any process, NVIDIA's OpenGL draws nothing in every process that also runs
// CUDA, until the GPU is reset; platform/drawing_path.hpp). So an app on the GPU checks that it
// draws once CUDA's context is made (checkDrawingBesideCuda), and again after another process of
// the app faulted; the supervisor gives each app it starts kFirstPictureSeconds to draw its first
// picture, and checkFirstPicture() looks at that picture. A failed check, a hang or a blank picture
// starts cudalab once more drawing in software (Mesa; the kernels stay on the GPU), and if that
// fails too, or no software renderer is installed, without the GPU, with the CPU references; the
// status bar says which and why. An app started
// again with the GPU, and every headless run, is watched for as long as it runs: its frames beat
// (platform/heartbeat.hpp), and kStillDrawingSeconds without a beat (the drawing blocked in the
// driver, as a restarted app on an H100 did after its first picture, and a screenshot after the
// playground's deliberate faults) do the same.
//
// CUDALAB_NO_SUPERVISOR=1 runs the app in one process (for a debugger); a fault then replaces the
// process by a fresh image in place.
#pragma once

#include <optional>
#include <string>

#include "common/status.hpp"
#include "platform/image.hpp"

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

// How long a process started again has to draw its first picture before its supervisor ends it
// and starts one without the GPU.
inline constexpr double kFirstPictureSeconds = 30;
// How long an app started again with the GPU may go without drawing (or waiting idle in its
// window) once its first picture is drawn: no frame of a working app takes nearly this long (the
// slowest in 30 minutes of soak on an H100: 0.45 s).
inline constexpr double kStillDrawingSeconds = 30;

// Whether this process's supervisor waits for its first picture (every supervised start).
bool firstPictureWatched();

// With the first whole picture the app drew (or why there is none), when firstPictureWatched():
// tells the supervisor the picture was drawn (in an app started again with the GPU and in a
// headless run, starting the heartbeat) and returns nullopt to go on; when the picture is
// blank or missing, starts again without the GPU and returns the exit code. `restoreFile` is
// --restore's value (empty in a first start).
std::optional<int> checkFirstPicture(Shell& shell, const std::string& restoreFile,
                                     const Result<Image>& picture, bool headless);

// With a later picture (after the lesson's action, the screenshot itself) of a headless run on the
// GPU (`gpu`), started again after a fault or not: one that came out blank means the GPU stopped
// drawing after the first picture (seen on an H100: the restarted app's first picture drew, the
// ladder's picture after it did not; on an H200, a fresh headless run after other processes'
// faults), so cudalab starts again without the GPU and returns the exit code; nullopt to go on.
std::optional<int> checkLaterPicture(Shell& shell, const std::string& restoreFile,
                                     const Result<Image>& picture, bool gpu);

// On the GPU's drawing path with a GPU (or CUDALAB_TEST_DRAWING=broken): checks that OpenGL draws
// beside CUDA (make CUDA's context first: makeDeviceContext). When it does not, starts again
// drawing in software and returns the exit code; nullopt to go on.
std::optional<int> checkDrawingBesideCuda(Shell& shell, bool gpu);

// An app started to draw in software whose software renderer cannot be had (`why`, from making
// the context): starts again without the GPU, with the state in `restoreFile`, and returns the
// exit code. nullopt when this app does not draw in software (the caller reports `why`).
std::optional<int> softwareDrawingUnavailable(const std::string& restoreFile, const Status& why);

// Tells the supervisor to stop waiting for the first picture without one (a window that starts
// minimised draws nothing to look at).
void stopFirstPictureWatch();

// A picture of one colour throughout (or of no pixels): what a GPU that stopped drawing leaves.
bool pictureIsBlank(const Image& picture);

}  // namespace cudalab
