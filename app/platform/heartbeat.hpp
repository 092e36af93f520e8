// The drawing thread's sign of life, for the supervisor that started this app
// (commands/restart.hpp).
//
// After a GPU fault some servers leave the GPU unable to draw beside CUDA: a process started
// again can draw its first picture and then block for good inside the graphics driver (seen on an
// H100: a restarted app hung for minutes after its first picture). So the supervisor of an app
// started again with the GPU watches it for as long as it runs: the app calls heartbeat() from
// every frame it draws and every idle wait of its window, which writes one byte on the
// supervisor's pipe at most once a second; a process that stops beating is ended and cudalab
// starts once more without the GPU.
//
//   startHeartbeat(fd);   // restart.cpp, once the first picture is drawn; takes the pipe's end
//   heartbeat();          // UiRenderer::frame, the window's minimised wait: cheap when off
//   stopHeartbeat();      // closes the pipe: the supervisor stops watching
#pragma once

namespace cudalab {

void startHeartbeat(int fd);
void heartbeat();
void stopHeartbeat();
bool heartbeatOn();

}  // namespace cudalab
