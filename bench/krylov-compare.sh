#!/usr/bin/env bash
# Jacobi (value iteration) against BiCGStab on the DTMCs of ../shared/benchmarks/prism/dtmcs,
# on each solver at the same relative epsilon: per property, each one's value, solve time
# and iterations (sweeps for Jacobi, Krylov iterations for BiCGStab; summed over SCCs on
# the CPU, over chunks on the GPU).
# Usage: bench/krylov-compare.sh MDPVI SHARED [EPSILON] [SOLVERS]   (SOLVERS: "cpu" or "cpu gpu")
# (herman19 and herman21 are not in the list: their states have more successors than
# mdpvi builds, over 4M for 512 states.)
set -uo pipefail
mdpvi=$1; D=$2/benchmarks/prism/dtmcs; eps=${3:-1e-10}; solvers=${4:-cpu}
instances=(
  "herman/herman13.pm herman/herman.pctl --const k=3,K=3 --prop 2"
  "herman/herman15.pm herman/herman.pctl --const k=3,K=3 --prop 2"
  "herman/herman17.pm herman/herman.pctl --const k=3,K=3 --prop 2"
  "leader_sync/leader5_8.pm leader_sync/leader.pctl --const L=3 --prop 1 --prop 3"
  "leader_sync/leader6_8.pm leader_sync/leader.pctl --const L=3 --prop 1 --prop 3"
  "brp/brp.pm brp/brp.pctl --const N=512,MAX=5 --prop 3 --prop 7"
)
echo "| instance | property | solver | method | value | solve s | iterations |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for inst in "${instances[@]}"; do
  set -- $inst
  model=$1 props=$2; shift 2
  for solver in $solvers; do
    for method in vi bicgstab; do
    "$mdpvi" check "$D/$model" "$D/$props" "$@" --method "$method" --solver "$solver" --relative --epsilon "$eps" \
      --max-iters 1000000 --json - 2>/dev/null |
      python3 -c '
import json, sys
report = json.load(sys.stdin)
for p in report["properties"]:
    solve = (p.get("phases") or {}).get("solve_s")
    cells = [sys.argv[1], "`" + p["property"] + "`", sys.argv[3], sys.argv[2], str(p["result"] if p["error"] is None else p["error"]),
             "-" if solve is None else "%.3f" % solve, str(p.get("iterations"))]
    print("| " + " | ".join(cells) + " |")
' "$(basename "$model" .pm)" "$method" "$solver"
  done
  done
done
