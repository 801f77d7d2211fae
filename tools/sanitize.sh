#!/usr/bin/env bash
# The unit tests under AddressSanitizer and UndefinedBehaviorSanitizer (clang, CUDA off,
# in build-fuzz beside the fuzz targets), every report fatal. The subset runs in CI:
# the readers, the parsers, the builder, the graph algorithms, the solvers and the
# checker, with the long benchmark instances left out (PRISM models, golden runs of
# the larger instances); tools/sanitize.sh all runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh fuzz
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMDPVI_ENABLE_CUDA=OFF \
  -DMDPVI_BUILD_TESTS=ON -DMDPVI_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target unit_tests
filter='-*PrismModel*:*Golden.*:*GoldenDrn.*:*GoldenUmb.*:*SoundReference*:*ReferenceInstances*:RoundTrip.PrismLanguage*'
[[ ${1:-} == all ]] && filter='*'
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export MDPVI_NO_HUGE_PAGES=1
build-fuzz/tests/unit_tests --gtest_filter="$filter" --gtest_brief=1
