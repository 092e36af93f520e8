#!/usr/bin/env bash
# cudalab's one entry point for a fresh Debian 12 / Ubuntu machine.
#
#   ./setup.sh open [cudalab options]   install what is missing, build (Release), open the app
#   ./setup.sh test                     install what is missing, build, run the test suite
#   ./setup.sh build                    install what is missing and build
#   ./setup.sh deps                     only install what is missing
#
# Packages come from the distribution (and the CUDA toolkit from NVIDIA's apt repository when it
# is configured); where the toolkit lacks a command-line tool the app runs (nvdisasm, cuobjdump),
# NVIDIA's own package of it comes from PyPI, pinned, into .deps/. Nothing else is downloaded, and
# nothing at build or run time. When everything is present it installs nothing.
# Environment: BUILD_DIR (default build), CUDA_ARCHS (default: the project's list; CI builds one).
set -euo pipefail
cd "$(dirname "$0")"
action=${1:-open}
[ $# -gt 0 ] && shift

packages=(
  cmake ninja-build g++ pkg-config ccache python3 python3-pip
  libimgui-dev libglfw3-dev libx11-dev python3-glad libstb-dev nlohmann-json3-dev libcli11-dev libgtest-dev
  libfontconfig-dev fonts-dejavu-core fonts-noto-cjk gettext
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri xvfb xauth xdotool
)

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "setup.sh: installing packages needs root; run as root or install sudo." >&2; exit 1
  fi
}

install_missing() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup.sh: installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "setup.sh: all packages present"
  fi
  if ! nvcc_path >/dev/null; then
    if apt-cache show cuda-toolkit-13-0 >/dev/null 2>&1; then
      echo "setup.sh: installing cuda-toolkit-13-0 from NVIDIA's apt repository"
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cuda-toolkit-13-0
    else
      echo "setup.sh: the CUDA toolkit (nvcc, 12.8 or newer) is needed to build cudalab, even on a" \
           "machine without a GPU. Add NVIDIA's CUDA apt repository for Debian 12 and run this again," \
           "or install the toolkit to /usr/local/cuda." >&2
      exit 1
    fi
  fi
  install_nvidia_tools
}

# NVIDIA's packages of the tools, each "name version sha256-of-the-x86_64-wheel". The toolkit's
# own copy is used where it has one; these start at 13.2 and read the 13.0 toolkit's binaries.
nvidia_tools=(
  "nvidia-cuda-nvdisasm 13.2.86 53606e719ecae07a2335f95902d5a1393a0cc1c317499ee7ffcf628a44385f2c"
  "nvidia-cuda-cuobjdump 13.2.86 d332c2ffe78e703ca0a3894be927f83124244e2acf0d792b8c12b4362d44d837"
)

install_nvidia_tools() {
  local entry name version sha tool cuda_bin
  cuda_bin=$(dirname "$(nvcc_path)")
  for entry in "${nvidia_tools[@]}"; do
    read -r name version sha <<<"$entry"
    tool=${name#nvidia-cuda-}
    [ -x "$cuda_bin/$tool" ] || [ -x ".deps/nvidia/cu13/bin/$tool" ] && continue
    echo "setup.sh: installing $tool ($name $version from PyPI) into .deps/"
    python3 tools/fetch_wheel.py "$name" "$version" "$sha" .deps >/dev/null
  done
}

nvcc_path() {
  if [ -x /usr/local/cuda/bin/nvcc ]; then echo /usr/local/cuda/bin/nvcc
  else command -v nvcc
  fi
}

build() {
  local dir=${BUILD_DIR:-build} args=()
  [ -n "${CUDA_ARCHS:-}" ] && args+=("-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHS")
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$(nvcc_path)" "${args[@]}"
  elif [ ${#args[@]} -gt 0 ]; then
    cmake "$dir" "${args[@]}" >/dev/null
  fi
  cmake --build "$dir" -j "$(nproc)"
}

case "$action" in
  deps) install_missing ;;
  build) install_missing; build ;;
  open) install_missing; build; exec "./${BUILD_DIR:-build}/cudalab" "$@" ;;
  test)
    install_missing; build
    ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
    ;;
  *) echo "setup.sh: unknown action \"$action\"; use open, test, build or deps." >&2; exit 2 ;;
esac
