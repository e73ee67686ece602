#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Kiln builds with, if any are missing.
# As root it runs apt-get; otherwise it uses sudo when available; else it prints the exact
# apt line to run and stops with status 1.
set -euo pipefail

# Xvfb and libxtst-dev: tst_realinput drives the window with real X input events.
# librandom123-dev (Random123's headers) is the reference tst_freshinputs checks the fresh-input
# generator against (sandbox/freshvalues.h).
# The third-last line is packaging: PNG icons (rsvg-convert), CPack's dpkg-shlibdeps (file),
# the desktop-entry, metainfo and man-page checks, and the fresh Debian root of tst_package.
# The second-last is Debian's CPU-only PyTorch with what load_inline compiles against: the pytorch
# backend's tests run its whole pipeline on torch's CPU device (the GPU runs need a CUDA torch).
# The last is Slurm and munge, whose daemons tst_slurmexecutor starts on this host
# (scripts/slurm-testbed.sh) for the --executor slurm tests.
packages=(build-essential cmake ninja-build pkg-config qt6-base-dev qt6-svg-dev libqcustomplot-dev
          libqscintilla2-qt6-dev libsqlite3-dev libcurl4-openssl-dev libdtl-dev xvfb libxtst-dev
          xauth sqlite3 binutils librandom123-dev
          librsvg2-bin file desktop-file-utils appstream groff-base debootstrap
          python3-torch libtorch-dev pybind11-dev python3-dev
          slurmctld slurmd slurm-client munge)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo)
elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
    sudo=(sudo)  # asks for the password on the terminal
else
    echo "Kiln needs these packages. Run, as root:" >&2
    echo "  apt-get update && $line" >&2
    exit 1
fi
echo "Installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
