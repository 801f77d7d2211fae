#!/usr/bin/env bash
# The test command (README, CI): install, build, run every test. GPU tests skip
# themselves where there is no device. First the checks under AddressSanitizer and
# UndefinedBehaviorSanitizer (clang, build-fuzz/): a fuzzing smoke of each reader
# (tools/fuzz.sh, 12 s a target) and the unit tests but the long benchmark instances
# (tools/sanitize.sh); then the release build and the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/fuzz.sh "${MDPVI_FUZZ_SECONDS:-12}"
bash tools/sanitize.sh
bash tools/build.sh
cd build
ctest --output-on-failure -j"$(nproc)"
