#!/usr/bin/env bash
# Installs what npuscope needs to build, test and package on Debian 12 (run as root).
# `--build-only`: only what building the two programs needs (the demo's first run), without the
# test, package, sanitizer and MPI tools, so that a fresh machine opens the demo sooner.
set -euo pipefail
packages=(build-essential cmake pkg-config lld
          qt6-base-dev qt6-base-dev-tools libqcustomplot-dev libgl1-mesa-dev
          nlohmann-json3-dev libboost-dev libsimdjson-dev libsqlite3-dev zlib1g-dev)
if [ "${1:-}" != "--build-only" ]; then
  packages+=(xvfb xauth poppler-utils desktop-file-utils appstream dpkg-dev file
             clang libclang-rt-14-dev llvm-14  # fuzz harnesses (libFuzzer), symbolized sanitizer reports
             clang-format                      # the format test (scripts/check-format.sh)
             libopenmpi-dev openmpi-bin)       # cluster-summary across processes (-DNPUSCOPE_MPI=ON) and its tests
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
