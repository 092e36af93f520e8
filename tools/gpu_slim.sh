#!/usr/bin/env bash
# What a GPU machine needs of a build, small enough to send with Mesa (tools/gpu_mesa.sh) in one
# call: the app, the GPU tests and the probe, stripped and compressed, with ctest's files.
#
#   bash tools/gpu_slim.sh pack BUILD_DIR .slim     # here, after a Release build with sm_90
#   bash tools/gpu_slim.sh unpack .slim BUILD_DIR   # there: BUILD_DIR as ctest knows it
#
# ctest's files name the build folder by its path here (/work/main/build-gpu): unpack to the same
# path there (../shared/gpu/README.md links /work/main to the tree).
set -eu
what=${1:?usage: gpu_slim.sh pack BUILD_DIR DIR | unpack DIR BUILD_DIR}
files="cudalab tests/cudalab_gpu_tests tools/cudalab_gpu_probe"
if [ "$what" = pack ]; then
  build=$2 dir=$3
  rm -rf "$dir" && mkdir -p "$dir/tests" "$dir/tools"
  for f in $files; do
    strip -o "$dir/$f" "$build/$f"
    xz -6 -T0 "$dir/$f"
  done
  printf 'subdirs("tests")\n' >"$dir/CTestTestfile.cmake"
  cp "$build/tests/CTestTestfile.cmake" "$dir/tests/"
  du -sh "$dir"
else
  dir=$2 build=$3
  mkdir -p "$build/tests" "$build/tools"
  # Python's lzma: the GPU image may lack xz.
  for f in $files; do
    python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
      "$dir/$f.xz" "$build/$f"
    chmod +x "$build/$f"
  done
  cp "$dir/CTestTestfile.cmake" "$build/"
  cp "$dir/tests/CTestTestfile.cmake" "$build/tests/"
fi
