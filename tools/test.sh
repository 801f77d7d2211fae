#!/usr/bin/env bash
# The test command (README, CI): install, build, run every test. GPU tests skip
# themselves where there is no device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
cd build
ctest --output-on-failure -j"$(nproc)"
