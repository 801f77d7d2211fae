#!/usr/bin/env bash
# The test command (README, CI): install, build, run every test. GPU tests skip
# themselves where there is no device. First a short fuzzing smoke of the file readers
# (tools/fuzz.sh, 20 s a target under ASan and UBSan), then the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/fuzz.sh "${MDPVI_FUZZ_SECONDS:-20}"
bash tools/build.sh
cd build
ctest --output-on-failure -j"$(nproc)"
