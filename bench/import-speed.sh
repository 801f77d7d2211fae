#!/usr/bin/env bash
# Issue 23: reading a large model from each file format against building it from the
# PRISM language. Exports coin6_4 (2.4M states, 11.8M transitions, with its reward
# structure, labels, actions and valuations) once per format with mdpvi itself, then
# times RUNS reads of each and RUNS builds, and prints the median of each.
# Usage: bench/import-speed.sh MDPVI SHARED_DIR [RUNS]   (into $OUT, else /tmp/import-speed)
set -euo pipefail
mdpvi=$1; shared=$2; runs=${3:-3}
out=${OUT:-/tmp/import-speed}
mkdir -p "$out"
model=$shared/benchmarks/prism/mdps/consensus/coin6.nm
seconds() {  # KEY, then mdpvi check arguments: the JSON's model.KEY
  local key=$1; shift
  "$mdpvi" check "$@" --json - 2>/dev/null </dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['model']['$key'])"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
"$mdpvi" check "$model" --const K=4 --export-model "$out/c.tra" >/dev/null 2>&1
"$mdpvi" check "$model" --const K=4 --export-model "$out/c.drn" >/dev/null 2>&1
"$mdpvi" check "$model" --const K=4 --export-model "$out/c.umb" >/dev/null 2>&1
"$mdpvi" check "$model" --const K=4 --export-model "$out/plain.umb" --umb-compression none >/dev/null 2>&1
printf "| how | size | seconds (median of %s) |\n| --- | --- | --- |\n" "$runs"
build=$(for i in $(seq "$runs"); do seconds build_time_s "$model" --const K=4; done | median)  # the progress line goes to stderr
rewards=$(for i in $(seq "$runs"); do seconds build_time_s "$model" --const K=4 --prop 'R{"steps"}max=? [ C<=0 ]'; done | median)
echo "| build from coin6.nm (no rewards) | | $build |"
echo "| build from coin6.nm (with its reward structure) | | $rewards |"
for f in c.tra c.drn c.umb plain.umb; do
  size=$(stat -c %s "$out/$f")
  [ "$f" = c.tra ] && size=$(cat "$out"/c.{tra,lab,sta,srew,trew} | wc -c)  # with the files beside it
  t=$(for i in $(seq "$runs"); do seconds parse_time_s "$out/$f"; done | median)
  echo "| read $f | $((size / 1000000)) MB | $t |"
done
rm -f "$out"/c.* "$out"/plain.umb
