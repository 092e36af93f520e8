#!/usr/bin/env python3
"""Installs the files of one of NVIDIA's wheels from PyPI into a folder of the project.

setup.sh calls it for the command-line tools the CUDA toolkit may lack (nvdisasm, cuobjdump):

    python3 tools/fetch_wheel.py nvidia-cuda-nvdisasm 13.2.86 SHA256 .deps

pip downloads the wheel (pip download installs nothing, so Debian's externally managed Python is
left alone); it must match the pinned SHA-256, given for x86_64 (on another machine the download
is used as PyPI served it). A wheel is a zip file: its files go under the folder as the wheel lays
them out (nvidia/cu13/bin/nvdisasm).
"""
import glob
import hashlib
import io
import os
import platform
import stat
import subprocess
import sys
import tempfile
import zipfile


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    name, version, pinned, target = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--only-binary=:all:", "--dest", tmp, f"{name}=={version}"], check=True)
        wheels = glob.glob(os.path.join(tmp, "*.whl"))
        if len(wheels) != 1:
            print(f"fetch_wheel: pip gave {len(wheels)} wheels for {name} {version}",
                  file=sys.stderr)
            return 1
        with open(wheels[0], "rb") as f:
            data = f.read()
    got = hashlib.sha256(data).hexdigest()
    if platform.machine() == "x86_64" and got != pinned:
        print(f"fetch_wheel: {os.path.basename(wheels[0])} has SHA-256 {got}, expected {pinned}",
              file=sys.stderr)
        return 1
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for member in z.infolist():
            if ".dist-info/" in member.filename or member.is_dir():
                continue
            path = os.path.join(target, member.filename)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as out:
                out.write(z.read(member))
            if "/bin/" in member.filename:
                os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            print(f"fetch_wheel: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
