#!/bin/sh
# Issue 24: a run stopped while its second property is still solving keeps the first
# one's result, printed at once and in the JSON file (rewritten after each property),
# and says why it stopped; so does the --export-results file, and no temporary file
# is left. Exits with mdpvi's status.
# Usage: interrupted_run.sh MDPVI MODEL
mdpvi=$1 model=$2
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
# The second property never converges (a state that stays put with probability
# 1 - 1e-13): it sweeps until it is interrupted.
"$mdpvi" check "$model" --prop 'P>0 [ F "goal" ]' --prop 'Pmax=? [ F "goal" ]' --max-iters 2000000000 \
  --json "$dir/report.json" --export-results "$dir/results.csv" >"$dir/out.txt" 2>&1 &
pid=$!
# Wait for the first result on standard output (at most 20 s), then stop it (SIGTERM: a background job of a script ignores SIGINT).
i=0
while ! grep -q "Result: true" "$dir/out.txt" && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
echo "name: $(cat /proc/$pid/comm)"  # kept across the huge-page restart
kill -TERM $pid
wait $pid
status=$?
echo "exit $status"
cat "$dir/out.txt"
echo "--- json"
cat "$dir/report.json"
echo "--- results"
cat "$dir/results.csv"
ls "$dir"
exit $status
