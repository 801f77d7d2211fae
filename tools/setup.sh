#!/usr/bin/env bash
# Installs the Debian 12 packages mdpvi builds with (as root; apt-get only runs when
# something is missing). CUDA is not a Debian package here: when /usr/local/cuda/bin/nvcc
# exists the GPU code is built, otherwise mdpvi builds without it. "setup.sh fuzz" adds
# clang and its sanitizer and libFuzzer runtimes (tools/fuzz.sh, tools/sanitize.sh).
set -euo pipefail
packages=(g++ cmake ninja-build libboost-graph-dev libtbb-dev libspdlog-dev libgtest-dev libcli11-dev
          nlohmann-json3-dev libarchive-dev libglpk-dev python3 python3-dev pybind11-dev python3-numpy python3-pytest
          libopenmpi-dev openmpi-bin)
if [[ ${1:-} == fuzz ]]; then packages+=(clang libclang-rt-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: run as root (or install these packages first): ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# gnuplot-nox draws --plot's sweeps (tools/sweep_plot.h) and nothing else needs it: a
# machine that cannot install it builds and tests the rest (the drawing test is left
# out there, and --plot says gnuplot is missing).
if ! dpkg-query -W -f='${Status}' gnuplot-nox 2>/dev/null | grep -q "install ok installed"; then
  if [[ $(id -u) -eq 0 ]] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox \
      >/dev/null 2>&1; then
    echo "setup: installed gnuplot-nox"
  else
    echo "setup: gnuplot-nox not installed: --plot will not draw" >&2
  fi
fi
