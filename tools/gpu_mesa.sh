#!/usr/bin/env bash
# Mesa's software renderer (llvmpipe) for the lent GPU machines, which have none: the drawing path
# the app takes after NVIDIA's OpenGL stops drawing beside CUDA (app/platform/drawing_path.hpp).
#
#   bash tools/gpu_mesa.sh pack .mesa        # here: this machine's Debian Mesa, about 37 MB (xz)
#   source tools/gpu_mesa.sh install .mesa   # there: unpacks to /opt/mesa and adds Mesa's EGL
#
# Only what EGL's software device needs is packed (Mesa's EGL, the swrast driver, LLVM 15 and the
# libraries the GPU image lacks: found by trying there, 2026-11-28); the rest (C and C++ runtimes,
# libdrm, libxml2, libelf, libedit, libffi, libexpat, libxcb) comes from the GPU machine's system. Name the
# folder in `carry` (git ignores it: .git/info/exclude).
set -u
what=${1:?usage: gpu_mesa.sh pack|install DIR}
dir=${2:?usage: gpu_mesa.sh pack|install DIR}

if [ "$what" = pack ]; then
  set -e
  lib=/usr/lib/x86_64-linux-gnu
  stage=$(mktemp -d)
  mkdir -p "$stage/lib/dri" "$dir"
  cp -L "$lib/dri/swrast_dri.so" "$stage/lib/dri/"
  for f in libEGL_mesa.so.0 libglapi.so.0 libgbm.so.1 libLLVM-15.so.1 libz3.so.4 libsensors.so.5 \
    libxcb-dri3.so.0 libxcb-dri2.so.0 libxcb-present.so.0 libxcb-sync.so.1 libxcb-randr.so.0 \
    libxcb-xfixes.so.0 libxshmfence.so.1 libX11-xcb.so.1 libwayland-server.so.0 \
    libwayland-client.so.0 libdrm_radeon.so.1 libdrm_amdgpu.so.1 libdrm_intel.so.1 \
    libdrm_nouveau.so.2 libpciaccess.so.0 libbsd.so.0 libmd.so.0 libXau.so.6 libXdmcp.so.6; do
    cp -L "$lib/$f" "$stage/lib/"
  done
  tar -cf - -C "$stage" . | xz -6 -T0 >"$dir/mesa.tar.xz"
  rm -rf "$stage"
  ls -l "$dir/mesa.tar.xz"
  exit 0
fi

# install (sourced): unpack once, then point the EGL loader and Mesa's driver search at it.
if [ ! -e /opt/mesa/lib/libEGL_mesa.so.0 ]; then
  mkdir -p /opt/mesa && xz -dc "$dir/mesa.tar.xz" | tar -xf - -C /opt/mesa
fi
cat >/opt/mesa/50_mesa.json <<'JSON'
{
    "file_format_version" : "1.0.0",
    "ICD" : {
        "library_path" : "/opt/mesa/lib/libEGL_mesa.so.0"
    }
}
JSON
export LD_LIBRARY_PATH=/opt/mesa/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LIBGL_DRIVERS_PATH=/opt/mesa/lib/dri
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -f "$nv" ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=$nv:/opt/mesa/50_mesa.json
else
  export __EGL_VENDOR_LIBRARY_FILENAMES=/opt/mesa/50_mesa.json
fi
