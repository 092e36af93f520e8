// Files embedded into the binary at build time (cmake/embed_dir.cmake): a table of names and
// texts per folder, so assets such as the playground's kernels need no install path.
#pragma once

#include <string_view>

namespace cudalab::embedded {

struct EmbeddedFile {
  const char* name;  // the file's name inside its folder: "double.starter.cu"
  const char* text;
};

// A binary file (cmake/embed_binary.cmake): the compiled translation catalogues.
struct EmbeddedBinary {
  const char* name;  // "ko.mo"
  const unsigned char* data;
  unsigned long size;
};

}  // namespace cudalab::embedded
