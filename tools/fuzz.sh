#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang with ASan and UBSan, in build-fuzz)
# and runs each for SECONDS (default 60) on a copy of its seed corpus. Fails on the
# first crash, leak, timeout or sanitizer report; prints each target's executions.
#   tools/fuzz.sh [SECONDS] [TARGET...]     TARGET: drn umb explicit model properties (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(drn umb explicit model properties)
bash tools/setup.sh fuzz
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMDPVI_ENABLE_CUDA=OFF \
  -DMDPVI_BUILD_TESTS=ON -DMDPVI_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  cp tests/fuzz/corpus/"$t"/* "$work/$t/"
  log="$work/$t.log"
  if ! build-fuzz/tests/fuzz/fuzz_"$t" "$work/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 \
      -artifact_prefix="$work/$t-" -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: $t failed; the input that did it is kept in build-fuzz/crashes" >&2
    mkdir -p build-fuzz/crashes && cp "$work/$t"-* build-fuzz/crashes/ 2>/dev/null || true
    exit 1
  fi
  echo "fuzz: $t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') executions in ${seconds} s, no crash"
done
