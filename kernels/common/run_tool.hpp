// Running one of the toolkit's command-line tools (nvdisasm, cuobjdump) on a file and reading what
// it prints: the tools the app does not link against, such as the disassembler behind the
// playground's SASS pane. Never learner code: that runs in the worker process alone.
//
//   Result<ToolRun> r = runTool("/usr/local/cuda/bin/nvdisasm", {"-g", "-c", cubinPath}, 10.0);
//   if (!r) show(r.status());             // could not start it, or it ran past the limit
//   else if (r->exitCode != 0) show(r->output);
//
// A file the tool must read can be written with `TempFile`, which removes it again.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

namespace cudalab {

struct ToolRun {
  int exitCode = 0;    // the tool's exit status (128 + N when signal N ended it)
  std::string output;  // what it printed, stdout and stderr together, up to 64 MiB
};

// Starts `program` (a path, or a name looked up on PATH) with `args`, waits at most `limitSeconds`
// (then stops it and fails with a sentence), and returns its exit status and output.
Result<ToolRun> runTool(const std::string& program, const std::vector<std::string>& args,
                        double limitSeconds);

// A file in the temporary folder holding `bytes`, removed when the object goes; `suffix` ends
// its name (".cubin": some tools choose what to do by it).
class TempFile {
 public:
  static Result<TempFile> write(std::string_view bytes, const std::string& suffix);
  TempFile(TempFile&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempFile& operator=(TempFile&&) = delete;
  TempFile(const TempFile&) = delete;
  ~TempFile();
  const std::string& path() const { return path_; }

 private:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Whether `path` names a file this process may run.
bool isExecutable(const std::string& path);

}  // namespace cudalab
