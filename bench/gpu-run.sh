#!/usr/bin/env bash
# Runs on the GPU machine (see ../shared/device/README.md): the test suite, the copy
# bandwidth, and GPU-vs-CPU solves of benchmark instances, into $OUT.
# MDPVI_BIN names another mdpvi binary (an earlier build, to compare in one call).
# Usage: bench/gpu-run.sh BUILD_DIR SHARED_DIR [tests|turns|spread|policy|policy-coin8|policy-coin8_4|policy-gpu|policy-gpu-coin8_4|fuzz|shapes|phases|timeline|transfer|krylov|levels|costs|costs-large|costs-coin8|agree-default|same|parts|pairs|storage|chain|leader9-chunks|memory|seam|sccs|sccs-cpu|graph|graph-large|sound|properties|mid|agree|pipeline|build|scaling|buildscale|ceiling|huge|compare|coin8|large]...
set -uo pipefail
build=$1; shared=$2; shift 2
export LD_LIBRARY_PATH=$PWD/$build/devlibs:${LD_LIBRARY_PATH:-}
export MDPVI_SHARED_DIR=$shared
mdpvi=${MDPVI_BIN:-$build/tools/mdpvi}
M=$shared/benchmarks/prism/mdps
out=${OUT:-/tmp}
coin_props=(--prop 'Pmin=? [ F "finished"&"all_coins_equal_0" ]' --prop 'Pmax=? [ F "finished"&!"agree" ]')
csma_props=(--prop 'Pmin=? [ !"collision_max_backoff" U "all_delivered" ]' --prop 'Pmax=? [ !"collision_max_backoff" U "all_delivered" ]')
wlan_props=(--prop 'Pmax=? [ true U col=k ]')
# Issue 3's four instances for build speed and memory: model, constants.
issue3_builds=("consensus/coin6.nm K=2" "leader_async/leader6.nm K=1" "csma/csma3_4.nm k=1" "wlan/wlan5.nm TRANS_TIME_MAX=10")

run() {  # name, then mdpvi check arguments
  local name=$1; shift
  echo "### $name" >>"$out/results.txt"
  timeout 400 "$mdpvi" check "$@" --json - >>"$out/results.txt" 2>>"$out/errors.txt"
  echo "### rc=$?" >>"$out/results.txt"
}

peak() { if [ -x /usr/bin/time ]; then /usr/bin/time -f "peak_kb %M" "$@"; else "$@"; fi; }

# One run of mdpvi -v check under peak for a part: its log and JSON as $out/PART-FILE.log
# and .json, its exit status and peak, then its phase line (named LABEL), into $out/PART.txt.
phase_run() {  # part, file, label, timeout in seconds, then mdpvi check's arguments
  local part=$1 file=$2 label=$3 limit=$4; shift 4
  local log="$out/$part-$file.log"
  peak timeout "$limit" "$mdpvi" -v check "$@" --json "$out/$part-$file.json" >"$log" 2>&1
  echo "rc=$? $(grep peak_kb "$log")" >>"$out/$part.txt"
  python3 bench/phase_line.py "$label" <"$out/$part-$file.json" >>"$out/$part.txt" 2>&1
}

# The large suite's representative property per instance (as bench.py's), into the
# array args: model, constants and property.
suite_args() {
  case $1 in
    coin6_4) args=($M/consensus/coin6.nm --const K=4 --prop 'Pmin=? [ F "finished"&"all_coins_equal_0" ]') ;;
    coin8_2) args=($M/consensus/coin8.nm --const K=2 --prop 'Pmin=? [ F "finished"&"all_coins_equal_0" ]') ;;
    leader8) args=($M/leader_async/leader8.nm --prop 'Rmax=? [ F "elected" ]') ;;
    leader9) args=($M/leader_async/leader9.nm --prop 'Rmin=? [ F "elected" ]') ;;
    csma*) args=($M/csma/$1.nm --prop 'Pmin=? [ !"collision_max_backoff" U "all_delivered" ]') ;;
    wlan6) args=($M/wlan/wlan6.nm --const TRANS_TIME_MAX=10 --prop 'R{"time"}max=? [ F s1=12 & s2=12 ]') ;;
  esac
}

# One build with -v (phase times), under peak: "### build MODEL threads T", then the
# JSON and the log. Arguments: model, constants, threads, then more mdpvi arguments;
# $build_timeout, if set, limits the run ("timeout 200").
build_once() {
  local model=$1 constants=$2 threads=$3 timeout=${build_timeout:-}
  shift 3
  echo "### build $model threads $threads" >>"$out/results.txt"
  peak $timeout "$mdpvi" -v check $M/$model --const $constants --threads $threads "$@" --json - >>"$out/results.txt" 2>&1
}

# Issue 21's cost table: the benchmark harness once per method (COST_METHODS, default
# vi, ovi, auto: value iteration, the last default and the default), each run's
# results under $out/costs/PART-METHOD (packed into costs.tgz at the end).
costs_run() {  # part name, then bench.py run arguments
  local name=$1; shift
  for m in ${COST_METHODS:-vi ovi auto}; do
    python3 tools/bench/bench.py run --mdpvi "$mdpvi" --method $m --out "$out/costs/$name-$m" "$@" 2>>"$out/errors.txt"
  done
}

for part in "$@"; do
  case $part in
    costs)
      costs_run medium --suite medium --solvers cpu,gpu --timeout 300
      costs_run large-cpu --suite large --solvers cpu --instances leader7,csma3_4,wlan5 --timeout 300
      ;;
    costs-large)
      costs_run large --suite large --solvers gpu --instances coin6_4,leader8,csma3_6,csma4_4,wlan6 --timeout 300 \
        --max-iters 1000000
      ;;
    levels)
      # Issue 22: the GPU by levels against the whole-chunk Jacobi and the 16-core CPU,
      # one representative property per instance (as bench.py's large suite), default
      # method; LEVELS_INSTANCES picks instances, LEVELS_MODES the modes.
      for inst in ${LEVELS_INSTANCES:-coin6_4 leader8 csma3_6 wlan6}; do
        suite_args $inst
        for mode in ${LEVELS_MODES:-levels whole cpu}; do
          if [ $mode = cpu ]; then
            run "levels $inst cpu" "${args[@]}" --solver cpu --max-iters 1000000
          elif [ -n "${LEVELS_VERBOSE:-}" ]; then  # with -v: the JSON and the log per run
            timeout 400 "$mdpvi" -v check "${args[@]}" --solver gpu --gpu-schedule $mode --max-iters 1000000 --json - \
              >"$out/levels-$inst-$mode.json" 2>"$out/levels-$inst-$mode.log"
          else
            run "levels $inst $mode" "${args[@]}" --solver gpu --gpu-schedule $mode --max-iters 1000000
          fi
        done
      done
      ;;
    shapes)
      # Issue 22, item 2: the sweep's group shape (lanes over each row's entries, or over
      # whole rows), each instance iterated as one chunk by value
      # iteration (--gpu-schedule whole: a sweep moves the whole chunk, so its bandwidth is
      # measured). SHAPE_INSTANCES and SHAPE_VARIANTS pick; coin8_2 at epsilon 1e-4.
      for inst in ${SHAPE_INSTANCES:-coin6_4 leader8 wlan6 csma3_6 coin8_2}; do
        suite_args $inst
        if [ $inst = coin8_2 ]; then args+=(--epsilon 1e-4); fi
        for variant in ${SHAPE_VARIANTS:-auto e1 r2 r4 r8 e2}; do
          shape=()
          case $variant in
            r*) shape=(--gpu-group-size ${variant#r} --gpu-lanes-over rows) ;;
            e*) shape=(--gpu-group-size ${variant#e} --gpu-lanes-over entries) ;;
          esac
          run "shapes $inst $variant" "${args[@]}" --solver gpu --method vi --gpu-schedule whole \
            --max-iters 1000000 "${shape[@]}"
        done
      done
      ;;
    phases)
      # Issue 22: per-phase lines (bench/phase_line.py) of the large suite's properties,
      # PHASE_INSTANCES x PHASE_SOLVERS, each with PHASE_ARGS; also into phases.txt.
      for inst in ${PHASE_INSTANCES:-leader8 wlan6 csma3_6 coin6_4}; do
        suite_args $inst
        for solver in ${PHASE_SOLVERS:-gpu cpu}; do
          timeout 400 "$mdpvi" check "${args[@]}" --solver $solver --max-iters 1000000 ${PHASE_ARGS:-} --json - \
            | python3 bench/phase_line.py "$inst $solver ${PHASE_ARGS:-}" | tee -a "$out/phases.txt"
        done
      done
      ;;
    timeline)
      # Issue 22: the GPU solve's own timeline (-v) and the per-phase line, for each of
      # PHASE_INSTANCES, printed (the call's files are few).
      for inst in ${PHASE_INSTANCES:-leader8 wlan6 csma3_6 csma4_4}; do
        suite_args $inst
        timeout 400 "$mdpvi" -v check "${args[@]}" --solver gpu --max-iters 1000000 ${PHASE_ARGS:-} --json "$out/t.json" \
          2>&1 | grep -E "device chunk:|by levels:|solve: chunk|width targets:" | sed "s/^/$inst: /"
        python3 bench/phase_line.py "$inst gpu ${PHASE_ARGS:-}" <"$out/t.json"
        rm -f "$out/t.json"
      done
      ;;
    transfer)
      # Issue 22: ways a large host array reaches the device (tools/bench/transfer_bench.cu).
      "$build/tools/transfer_bench" ${TRANSFER_GIB:-3.4} >"$out/transfer.txt" 2>>"$out/errors.txt"
      ;;
    krylov)
      # Issue 25: Jacobi against BiCGStab on the DTMCs, CPU (16 cores) and GPU.
      bash bench/krylov-compare.sh "$mdpvi" "$shared" 1e-10 "cpu gpu" >"$out/krylov.md" 2>>"$out/errors.txt"
      ;;
    costs-coin8)
      costs_run coin8 --suite large --solvers gpu --instances coin8_2 --timeout 300 --max-iters 1000000
      ;;
    agree-default)
      # Issue 21: CPU and GPU in default mode (optimistic value iteration) on coin6_4 Pmax.
      for solver in ${AGREE_SOLVERS:-gpu cpu}; do
        run "coin6_4 Pmax default $solver" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:2:2}" --solver $solver
      done
      ;;
    sound)
      # Interval iteration (--sound) against plain value iteration, default epsilon.
      for mode in vi ii; do
        extra=(); [ $mode = ii ] && extra=(--sound)
        run "coin6_2 $mode gpu" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver gpu "${extra[@]}"
        run "coin6_2 $mode cpu" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver cpu "${extra[@]}"
        run "coin6_4 $mode gpu" $M/consensus/coin6.nm --const K=4 "${coin_props[@]}" --solver gpu "${extra[@]}" --max-iters 10000000
        run "csma3_4 $mode gpu" $M/csma/csma3_4.nm "${csma_props[@]}" --solver gpu "${extra[@]}"
        run "leader7 $mode gpu" $M/leader_async/leader7.nm --prop 'Rmin=? [ F "elected" ]' --prop 'Rmax=? [ F "elected" ]' --solver gpu "${extra[@]}"
        run "coin4_4 rewards $mode cpu" $M/consensus/coin4.nm --const K=4 --prop 'R{"steps"}min=? [ F "finished" ]' --prop 'R{"steps"}max=? [ F "finished" ]' --solver cpu "${extra[@]}" --max-iters 10000000
      done
      ;;
    properties)
      # Every property of the files, GPU against CPU at a tight epsilon: the reference
      # instances (compared with reference.json afterwards) and larger ones.
      tight=(--absolute --epsilon 1e-10 --max-iters 1000000)
      for solver in gpu cpu; do
        run "coin4_4 all $solver" $M/consensus/coin4.nm $M/consensus/coin.pctl --const K=4,k=10 --solver $solver "${tight[@]}"
        run "csma3_2 all $solver" $M/csma/csma3_2.nm $M/csma/csma.pctl --const k=1 --solver $solver "${tight[@]}"
        run "leader6 all $solver" $M/leader_async/leader6.nm $M/leader_async/leader_fixed.pctl --const K=1 --solver $solver "${tight[@]}"
        run "wlan3 all $solver" $M/wlan/wlan3.nm $M/wlan/wlan.pctl --const TRANS_TIME_MAX=10,k=2 --solver $solver "${tight[@]}"
        run "coin6_2 all $solver" $M/consensus/coin6.nm $M/consensus/coin.pctl --const K=2,k=10 --solver $solver
        run "csma3_4 all $solver" $M/csma/csma3_4.nm $M/csma/csma.pctl --const k=2 --solver $solver
        run "leader7 all $solver" $M/leader_async/leader7.nm $M/leader_async/leader_fixed.pctl --const K=20 --solver $solver
      done
      ;;
    chain)
      # Issue 39: the 1,000,000-state chain's build, the new binary against $OLD_MDPVI,
      # interleaved, twice.
      cat >"$out/chain.pm" <<'CHAIN'
dtmc

module m
  x : [0..1000000] init 0;
  [] x<1000000 -> (x'=x+1);
endmodule
CHAIN
      for repeat in 1 2; do
        for which in new old; do
          bin=$mdpvi; [ $which = old ] && bin=$OLD_MDPVI
          echo "### chain $which repeat $repeat" >>"$out/results.txt"
          peak timeout 120 "$bin" check "$out/chain.pm" --prop 'P=? [ F x=1000000 ]' >>"$out/results.txt" 2>&1
        done
      done
      rm -f "$out/chain.pm"
      ;;
    leader9-chunks)
      # Issue 39: leader9 Rmin as one chunk and with an 8 GB budget (the new binary),
      # and with the budget before (\$OLD_MDPVI); -v for the phases and the memory.
      # LEADER9_RUNS: which runs, comma-separated ("new one,new budget4": 4 GB, budgetN: N GB).
      IFS=, read -ra leader9_runs <<<"${LEADER9_RUNS:-new one,new budget,old budget}"
      for which in "${leader9_runs[@]}"; do
        read -r who mode <<<"$which"
        bin=$mdpvi; [ $who = old ] && bin=$OLD_MDPVI
        budget=(); [ $mode = budget ] && budget=(--gpu-memory-limit 8000000000)
        [[ $mode == budget?* ]] && budget=(--gpu-memory-limit ${mode#budget}000000000)
        echo "### leader9 $which" >>"$out/results.txt"
        peak timeout 200 "$bin" -v check $M/leader_async/leader9.nm --prop 'Rmin=? [ F "elected" ]' "${budget[@]}" \
          --json - >>"$out/results.txt" 2>"$out/log-leader9-$who-$mode.txt"
        tail -1 "$out/log-leader9-$who-$mode.txt" >>"$out/results.txt"
      done
      ;;
    memory)
      # Issue 39: the large suite's memory table, the new binary on the GPU (MEMORY_GPU_SYSTEM:
      # its --gpu-system, default auto; the table and the results named after it).
      system=${MEMORY_GPU_SYSTEM:-auto}
      python3 tools/bench/bench.py run --suite large --solvers gpu --mdpvi "$mdpvi" --timeout 150 --out "$out/memory" \
        --gpu-system $system 2>>"$out/errors.txt" | tail -1
      python3 tools/bench/bench.py memory "$out/memory" >"$out/memory-$system.md"
      cp "$out/memory/results.json" "$out/memory-$system-results.json" && rm -rf "$out/memory"
      ;;
    parts)
      # Issue 40: an SCC past one GPU's chunk budget (PARTS_BUDGET bytes), solved in
      # parts on the visible GPUs ("parts"), against the CPU's methods on all cores
      # ("cpu": --gpus 1) and against one GPU without a budget ("whole"); each run -v
      # under peak, its log in parts-NAME-RUN.log, its JSON in results.txt.
      for spec in ${PARTS_INSTANCES:-coin4:2 coin6:2}; do
        model=${spec%%:*} k=${spec##*:}
        for run in cpu parts whole; do
          case $run in
            cpu) flags=(--gpus 1 --gpu-memory-limit ${PARTS_BUDGET:-1000000}) ;;
            parts) flags=(--gpu-memory-limit ${PARTS_BUDGET:-1000000}) ;;
            whole) flags=() ;;
          esac
          echo "### parts $model K=$k $run" >>"$out/results.txt"
          peak timeout ${PARTS_TIMEOUT:-150} "$mdpvi" -v check $M/consensus/$model.nm --const K=$k "${coin_props[@]}" "${flags[@]}" \
            --json - >>"$out/results.txt" 2>"$out/parts-$model-$k-$run.log"
          echo "### rc=$?" >>"$out/results.txt"
        done
      done
      ;;
    turns)
      # Issues 39 and 45: each of TURNS_INSTANCES (suite_args's names) under a chunk
      # budget of TURNS_BUDGET bytes, its chunks taking turns over N GPUs for N in
      # TURNS_GPUS, then on one GPU with each chunk copied on the host (--gpu-chunk-cut
      # host, the way before the device cut them); -v under peak, one phase line each
      # (turns.txt), the logs beside it.
      for inst in ${TURNS_INSTANCES:-leader9 coin8_2}; do
        suite_args $inst
        for n in ${TURNS_GPUS:-1 2 4} host; do
          flags=(--gpu-memory-limit ${TURNS_BUDGET:-8000000000})
          if [ $n = host ]; then flags+=(--gpus 1 --gpu-chunk-cut host); else flags+=(--gpus $n); fi
          phase_run turns $inst-$n "$inst gpus=$n" ${TURNS_TIMEOUT:-200} "${args[@]}" "${flags[@]}"
        done
      done
      ;;
    spread)
      # Issue 40: each of SPREAD_INSTANCES (suite_args's names) on 1 GPU and with --gpus N
      # for N in SPREAD_GPUS; -v under peak, one phase line each (spread.txt), the logs
      # beside it. (Until session 15, --gpus N built the system on the host and spread
      # each level's SCCs over the GPUs; since, the system is built on the device where
      # it can be, and the spread applies to host-built systems only.)
      for inst in ${SPREAD_INSTANCES:-coin8_2 leader9}; do
        suite_args $inst
        for n in 1 ${SPREAD_GPUS:-2}; do
          flags=(); [ "$n" -gt 1 ] && flags=(--gpus $n)
          phase_run spread $inst-$n "$inst gpus=$n" ${SPREAD_TIMEOUT:-200} "${args[@]}" "${flags[@]}"
        done
      done
      ;;
    pairs)
      # Issue 39: each of PAIR_INSTANCES (suite_args's names) with the new binary, then
      # with \$OLD_MDPVI, under peak and with -v (the log per run beside results.txt).
      for inst in ${PAIR_INSTANCES:-leader9 leader8 csma4_4 coin8_2}; do
        suite_args $inst
        for which in new old; do
          bin=$mdpvi; [ $which = old ] && bin=$OLD_MDPVI
          echo "### pair $which $inst" >>"$out/results.txt"
          peak timeout 300 "$bin" -v check "${args[@]}" --json - >>"$out/results.txt" 2>"$out/log-$inst-$which.txt"
          echo "### rc=$?" >>"$out/results.txt"
          tail -1 "$out/log-$inst-$which.txt" >>"$out/results.txt"
        done
      done
      ;;
    storage)
      # Issue 39: the system built on the device copied, against the view over the
      # resident model, the new binary, each of STORAGE_INSTANCES (suite_args's names),
      # interleaved STORAGE_REPEATS times (2), under peak and with -v (the log per run beside results.txt).
      for repeat in $(seq ${STORAGE_REPEATS:-2}); do
        for inst in ${STORAGE_INSTANCES:-leader9 coin8_2 csma4_4 leader8 wlan6}; do
          suite_args $inst
          for storage in copy view; do
            log="$out/log-$inst-$storage-$repeat.txt"
            echo "### storage $storage $inst repeat $repeat" >>"$out/results.txt"
            peak timeout 300 "$mdpvi" -v check "${args[@]}" --gpu-system $storage --json - >>"$out/results.txt" 2>"$log"
            echo "### rc=$?" >>"$out/results.txt"
            tail -1 "$log" >>"$out/results.txt"
          done
        done
      done
      ;;
    same)
      # Issue 38: no behaviour change against $OLD_MDPVI. The medium suite on the GPU
      # and the CPU with each binary (answers compared bit for bit afterwards), then
      # the large suite's representative properties interleaved, twice, for the times.
      for which in old new; do
        bin=$mdpvi; [ $which = old ] && bin=$OLD_MDPVI
        python3 tools/bench/bench.py run --suite medium --solvers gpu,cpu --mdpvi "$bin" --out "$out/same/medium-$which" \
          2>>"$out/errors.txt" | tail -1
      done
      for repeat in 1 2; do
        for which in new old; do
          bin=$mdpvi; [ $which = old ] && bin=$OLD_MDPVI
          for inst in ${SAME_INSTANCES:-coin6_4 leader8 csma3_6 wlan6 csma4_4}; do
            suite_args $inst
            echo "### same $which $inst repeat $repeat" >>"$out/results.txt"
            peak timeout 300 "$bin" check "${args[@]}" --max-iters 1000000 --json - >>"$out/results.txt" 2>&1
          done
        done
      done
      ;;
    seam)
      # Issue 19: the solver seam against the binary before it ($OLD_MDPVI), the
      # same runs interleaved, twice: GPU solves of coin6_4 and leader7, plain and sound.
      leader_rewards=(--prop 'Rmin=? [ F "elected" ]' --prop 'Rmax=? [ F "elected" ]')
      for repeat in 1 2; do
        for which in new old; do
          bin=$mdpvi; [ $which = old ] && bin=$OLD_MDPVI
          seam_run() {
            echo "### seam $which $1 repeat $repeat" >>"$out/results.txt"; shift
            timeout 300 "$bin" check "$@" --solver gpu --json - >>"$out/results.txt" 2>>"$out/errors.txt"
          }
          seam_run "coin6_4 vi" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:0:2}" --max-iters 1000000
          seam_run "coin6_4 ii" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:0:2}" --sound
          seam_run "leader7 vi" $M/leader_async/leader7.nm "${leader_rewards[@]}"
          seam_run "leader7 ii" $M/leader_async/leader7.nm "${leader_rewards[@]}" --sound
        done
      done
      ;;
    sccs)
      # Issue 20, second part (SCCs on the GPU): the large suite with -v, whole runs with
      # the GPU solver; each run's log (the debug lines time the parts of each phase) in
      # $out/log-NAME.txt. With OLD_MDPVI set, the same runs of that binary after (with
      # ONLY_OLD set too, only those).
      suite() {  # binary tag
        local bin=$1 tag=$2
        large_run() {
          local name="$1 $tag"; shift
          echo "### $name" >>"$out/results.txt"
          peak timeout 300 "$bin" -v check "$@" --json - >>"$out/results.txt" 2>"$out/log-$(echo "$name" | tr ' +' '__').txt"
          echo "### rc=$?" >>"$out/results.txt"
        }
        large_run "coin8_2 Pmin" $M/consensus/coin8.nm --const K=2 "${coin_props[@]:0:2}"
        large_run "coin8_2 Pmax" $M/consensus/coin8.nm --const K=2 "${coin_props[@]:2:2}"
        large_run "csma3_6 Pmax" $M/csma/csma3_6.nm "${csma_props[@]:2:2}"
        large_run "csma4_4 Pmin+Pmax" $M/csma/csma4_4.nm "${csma_props[@]}"
        large_run "leader8 Rmin" $M/leader_async/leader8.nm --prop 'Rmin=? [ F "elected" ]'
        large_run "wlan6 Pmax Rmax" $M/wlan/wlan6.nm --const TRANS_TIME_MAX=10,k=2 --prop 'Pmax=? [ true U bc1=k | bc2=k ]' \
          --prop 'R{"time"}max=? [ F s1=12 & s2=12 ]'
      }
      [ -z "${ONLY_OLD:-}" ] && suite "$mdpvi" new
      [ -n "${OLD_MDPVI:-}" ] && suite "$OLD_MDPVI" old
      ;;
    sccs-cpu)
      # The oneTBB SCCs against Boost's Tarjan on coin8_2 Pmin and csma3_6 Pmax, graph
      # phases only (one sweep), and leader8 Rmin with the graph phases on the CPU.
      for g in cpu reference; do
        echo "### coin8_2 Pmin graph $g, one sweep" >>"$out/results.txt"
        "$mdpvi" -v check $M/consensus/coin8.nm --const K=2 "${coin_props[@]:0:2}" --graph $g --max-iters 1 --json - \
          >>"$out/results.txt" 2>"$out/log-coin8_2_Pmin_$g.txt"
      done
      for g in cpu reference; do
        echo "### csma3_6 Pmax graph $g, one sweep" >>"$out/results.txt"
        "$mdpvi" -v check $M/csma/csma3_6.nm "${csma_props[@]:2:2}" --graph $g --max-iters 1 --json - \
          >>"$out/results.txt" 2>"$out/log-csma3_6_Pmax_$g.txt"
      done
      echo "### leader8 Rmin graph cpu" >>"$out/results.txt"
      "$mdpvi" -v check $M/leader_async/leader8.nm --prop 'Rmin=? [ F "elected" ]' --graph cpu --json - \
        >>"$out/results.txt" 2>"$out/log-leader8_Rmin_cpu.txt"
      ;;
    graph|graph-large)
      # Issue 20: the graph phases on each backend (gpu, cpu = oneTBB at 16 threads,
      # reference = Boost, sequential), whole runs with the GPU solver.
      coin_max=(--prop 'Pmax=? [ F "finished"&!"agree" ]')
      csma_max=(--prop 'Pmax=? [ !"collision_max_backoff" U "all_delivered" ]')
      if [ $part = graph ]; then
        for g in gpu cpu reference; do
          run "coin6_4 Pmax graph $g" $M/consensus/coin6.nm --const K=4 "${coin_max[@]}" --graph $g
        done
        for g in gpu cpu; do
          run "csma3_6 Pmax graph $g" $M/csma/csma3_6.nm "${csma_max[@]}" --graph $g
          run "leader8 Rmin graph $g" $M/leader_async/leader8.nm --prop 'Rmin=? [ F "elected" ]' --graph $g
        done
      else
        run "coin8_2 Pmin graph gpu" $M/consensus/coin8.nm --const K=2 "${coin_props[@]:0:2}" --graph gpu
        run "coin8_2 Pmax graph gpu" $M/consensus/coin8.nm --const K=2 "${coin_max[@]}" --graph gpu
        run "csma4_4 Pmin+Pmax graph gpu" $M/csma/csma4_4.nm "${csma_props[@]}" --graph gpu
        # The oneTBB searches against the sequential reference, graph phases only (one sweep).
        run "coin8_2 Pmin+Pmax graph cpu, one sweep" $M/consensus/coin8.nm --const K=2 "${coin_props[@]}" --graph cpu --max-iters 1
        run "coin8_2 Pmin graph reference, one sweep" $M/consensus/coin8.nm --const K=2 "${coin_props[@]:0:2}" --graph reference --max-iters 1
        [ -n "${WITH_REFERENCE:-}" ] && run "csma3_6 Pmax graph reference" $M/csma/csma3_6.nm "${csma_max[@]}" --graph reference
      fi
      ;;
    tests)
      nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv >"$out/device.txt" 2>&1
      "$mdpvi" devices --bandwidth >>"$out/device.txt" 2>&1
      nproc >>"$out/device.txt"
      "$build/tests/unit_tests" >"$out/unit_tests.txt" 2>&1; echo "unit_tests rc=$?" >>"$out/unit_tests.txt"
      ;;
    fuzz)
      # Issue 26's long fuzzing runs on all cores: FUZZ_DIR holds fuzz_TARGET (and its
      # devlibs, and corpus-TARGET to go on from), FUZZ_TARGETS the targets,
      # FUZZ_SECONDS each one's time.
      export LD_LIBRARY_PATH=$FUZZ_DIR/devlibs:$LD_LIBRARY_PATH MDPVI_FUZZ_MODEL=$PWD/models/resend/resend.nm
      for t in ${FUZZ_TARGETS:-properties model}; do
        seeds=tests/fuzz/corpus/$t; [ -d "$FUZZ_DIR/corpus-$t" ] && seeds=$FUZZ_DIR/corpus-$t  # a run's to go on from
        mkdir -p "$out/corpus-$t" && cp "$seeds"/* "$out/corpus-$t/"
        "$FUZZ_DIR/fuzz_$t" "$out/corpus-$t" -fork="$(nproc)" -ignore_crashes=0 -max_total_time="${FUZZ_SECONDS:-200}" -rss_limit_mb=2048 \
          -timeout=20 -artifact_prefix="$out/fuzz-$t-" -print_final_stats=1 >"$out/fuzz-$t.log" 2>&1
        echo "fuzz $t rc=$?" >>"$out/fuzz.txt"
        grep -E '^#[0-9]+' "$out/fuzz-$t.log" | tail -1 >>"$out/fuzz.txt"
        tar czf "$out/corpus-$t.tgz" -C "$out" "corpus-$t" && rm -rf "$out/corpus-$t"
      done
      ;;
    mid)
      for solver in gpu cpu; do
        run "coin6_2 $solver" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver $solver
        run "coin6_4 $solver" $M/consensus/coin6.nm --const K=4 "${coin_props[@]}" --solver $solver
        run "csma3_4 $solver" $M/csma/csma3_4.nm "${csma_props[@]}" --solver $solver
        run "wlan5_collide $solver" $M/wlan/wlan5_collide.nm --const COL=2,TRANS_TIME_MAX=10,k=2 "${wlan_props[@]}" --solver $solver
      done
      run "leader7 build" $M/leader_async/leader7.nm --prop 'Pmax=? [ F "elected" ]'
      for g in 1 2 4 8 32; do
        run "coin6_4 gpu group $g" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:0:2}" --solver gpu --gpu-group-size $g
      done
      run "coin6_2 gpu 10 chunks" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver gpu --gpu-memory-limit 12000000
      ;;
    agree)
      tight=(--absolute --epsilon 1e-10 --max-iters 1000000)
      run "coin6_2 cpu tight" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver cpu "${tight[@]}"
      run "coin6_2 gpu tight" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver gpu "${tight[@]}"
      run "coin6_2 gpu tight chunks" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver gpu "${tight[@]}" --gpu-memory-limit 3000000
      run "coin6_4 gpu converged" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:0:2}" --solver gpu --max-iters 1000000
      run "coin6_4 cpu converged" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:0:2}" --solver cpu --max-iters 1000000
      for solver in gpu cpu; do
        run "wlan5_collide $solver" $M/wlan/wlan5_collide.nm --const COL=2,TRANS_TIME_MAX=10,k=2 "${wlan_props[@]}" --solver $solver
      done
      ;;
    pipeline)
      tight=(--absolute --epsilon 1e-10 --max-iters 1000000)
      run "coin6_2 gpu tight" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver gpu "${tight[@]}"
      run "coin6_2 gpu tight pipelined chunks" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver gpu "${tight[@]}" --gpu-memory-limit 6000000
      run "coin6_2 cpu tight chunks" $M/consensus/coin6.nm --const K=2 "${coin_props[@]}" --solver cpu "${tight[@]}" --gpu-memory-limit 6000000
      run "coin6_4 gpu pipelined chunks" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:0:2}" --solver gpu --max-iters 1000000 --gpu-memory-limit 40000000
      ;;
    build)
      for t in 1 4 16; do
        for inst in "consensus/coin6.nm K=4" "leader_async/leader7.nm K=1" "csma/csma3_4.nm k=1" "wlan/wlan5.nm TRANS_TIME_MAX=10"; do
          set -- $inst
          echo "### build $1 threads $t" >>"$out/results.txt"
          peak "$mdpvi" check $M/$1 --const $2 --threads $t --json - >>"$out/results.txt" 2>>"$out/errors.txt"
        done
      done
      for inst in "consensus/coin8.nm K=2" "csma/csma3_6.nm k=1"; do
        set -- $inst
        echo "### build $1 threads 16" >>"$out/results.txt"
        peak "$mdpvi" check $M/$1 --const $2 --threads 16 --json - >>"$out/results.txt" 2>>"$out/errors.txt"
      done
      ;;
    scaling)
      # Issue 3's builder instances at 1-16 threads, with the property files.
      for t in 1 2 4 8 16; do
        for inst in "${issue3_builds[@]}"; do
          build_once $inst $t
        done
      done
      ;;
    buildscale)
      # Issue 3: build time only (a trivial property), best of 3, 1-16 threads; then
      # the largest instances, and wlan6 (wide levels: the block pool's budget), at 16
      # threads.
      for t in 1 2 4 8 16; do
        for inst in "${issue3_builds[@]}"; do
          for r in 1 2 3; do build_once $inst $t --prop 'Pmax=? [ F true ]'; done
        done
      done
      for inst in "consensus/coin8.nm K=2" "csma/csma4_4.nm k=1" "wlan/wlan6.nm TRANS_TIME_MAX=10"; do
        build_timeout="timeout 200" build_once $inst 16 --prop 'Pmax=? [ F true ]'
      done
      ;;
    ceiling)
      # Issue 3: what 16 cores give these builds with nothing shared. Per instance and
      # round: one single-thread build alone, 16 at once (separate processes), then one
      # 16-thread build. "ceiling N: T1 T2 ..." lists each process's build time.
      for inst in "${issue3_builds[@]}"; do
        set -- $inst
        for r in 1 2 3; do
          for n in 1 16; do
            for i in $(seq $n); do
              "$mdpvi" check $M/$1 --const $2 --threads 1 --prop 'Pmax=? [ F true ]' --json /tmp/ceiling$i.json >/dev/null 2>&1 &
            done
            wait
            echo "### $1 $2 ceiling $n: $(for i in $(seq $n); do grep -o '"build_time_s": [0-9.]*' /tmp/ceiling$i.json | cut -d' ' -f2; done | tr '\n' ' ')" >>"$out/results.txt"
          done
          "$mdpvi" check $M/$1 --const $2 --threads 16 --prop 'Pmax=? [ F true ]' --json /tmp/ceiling16.json >/dev/null 2>&1
          echo "### $1 $2 threads 16: $(grep -o '"build_time_s": [0-9.]*' /tmp/ceiling16.json | cut -d' ' -f2)" >>"$out/results.txt"
        done
      done
      ;;
    huge)
      # The mission's largest instances must build in the machine's 128 GB.
      for inst in "consensus/coin8.nm K=2" "csma/csma4_4.nm k=1" "csma/csma3_6.nm k=1"; do
        build_timeout="timeout 280" build_once $inst 16
      done
      ;;
    compare)
      leader_props=(--prop 'Pmin=? [ F s1=4 ]' --prop 'Pmax=? [ F s1=4 ]')
      for solver in gpu cpu; do
        run "csma3_6 $solver" $M/csma/csma3_6.nm "${csma_props[@]}" --solver $solver
        run "leader7 $solver" $M/leader_async/leader7.nm "${leader_props[@]}" --solver $solver
        run "wlan6_collide $solver" $M/wlan/wlan6_collide.nm --const COL=2,TRANS_TIME_MAX=10,k=2 "${wlan_props[@]}" --solver $solver
      done
      "$mdpvi" -v check $M/consensus/coin8.nm --const K=2 >>"$out/results.txt" 2>&1
      ;;
    coin8)
      run "coin8_2 gpu" $M/consensus/coin8.nm --const K=2 "${coin_props[@]:0:2}" --solver gpu --max-iters 100000
      ;;
    policy|policy-coin8|policy-coin8_4|policy-gpu|policy-gpu-coin8_4)
      # Issue 41: policy iteration (CPU, all cores) against value iteration and
      # optimistic value iteration on the CPU and the default on the GPU, one property
      # a run, each under /usr/bin/time (peak host memory).
      policy_run() {  # name, then mdpvi check arguments
        echo "### $1" >>"$out/results.txt"; shift
        peak timeout ${policy_timeout:-300} "$mdpvi" check "$@" --json - >>"$out/results.txt" 2>>"$out/errors.txt"
        echo "### rc=$?" >>"$out/results.txt"
      }
      if [ $part = policy ]; then
        timeout 150 python3 tools/bench/bench.py run --mdpvi "$mdpvi" --suite medium --solvers cpu --check --method pi \
          --out "$out/costs/medium-pi" 2>>"$out/errors.txt"
        timeout 150 python3 tools/bench/bench.py run --mdpvi "$mdpvi" --suite medium --solvers cpu --check \
          --out "$out/costs/medium-ovi" 2>>"$out/errors.txt"
        for i in 0 2; do
          for m in pi vi ovi; do
            policy_run "coin6_4 ${coin_props[$((i+1))]} $m cpu" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:$i:2}" \
              --solver cpu --method $m --max-iters 10000000
          done
          policy_run "coin6_4 ${coin_props[$((i+1))]} ovi gpu" $M/consensus/coin6.nm --const K=4 "${coin_props[@]:$i:2}" \
            --solver gpu --max-iters 10000000
        done
      elif [ $part = policy-gpu ]; then
        for instance in "coin6.nm K=4" "coin8.nm K=2"; do
          set -- $instance
          for i in 0 2; do
            for m in pi ovi; do
              policy_run "$1 $2 ${coin_props[$((i+1))]} $m gpu" $M/consensus/$1 --const $2 "${coin_props[@]:$i:2}" \
                --solver gpu --method $m --max-iters 10000000
            done
          done
        done
      elif [ $part = policy-gpu-coin8_4 ]; then
        for i in 0 2; do
          policy_run "coin8_4 ${coin_props[$((i+1))]} pi gpu" $M/consensus/coin8.nm --const K=4 "${coin_props[@]:$i:2}" \
            --solver gpu --method pi --max-iters 10000000
        done
      elif [ $part = policy-coin8_4 ]; then
        for i in 0 2; do
          policy_run "coin8_4 ${coin_props[$((i+1))]} pi cpu" $M/consensus/coin8.nm --const K=4 "${coin_props[@]:$i:2}" \
            --solver cpu --method pi --max-iters 10000000
        done
      else
        for i in 0 2; do
          policy_run "coin8_2 ${coin_props[$((i+1))]} pi cpu" $M/consensus/coin8.nm --const K=2 "${coin_props[@]:$i:2}" \
            --solver cpu --method pi --max-iters 10000000
          policy_run "coin8_2 ${coin_props[$((i+1))]} ovi gpu" $M/consensus/coin8.nm --const K=2 "${coin_props[@]:$i:2}" \
            --solver gpu --max-iters 10000000
        done
      fi
      ;;
    large)
      run "coin8_2 gpu" $M/consensus/coin8.nm --const K=2 "${coin_props[@]:0:2}" --solver gpu --max-iters 100000
      run "csma3_6 gpu" $M/csma/csma3_6.nm "${csma_props[@]:0:2}" --solver gpu
      ;;
  esac
done

# The device returns at most 8 files: the per-run logs travel as one archive.
if ls "$out"/log-*.txt >/dev/null 2>&1; then
  tar czf "$out/logs.tgz" -C "$out" $(cd "$out" && ls log-*.txt) && rm -f "$out"/log-*.txt
fi  # logs packed
if [ -d "$out/same" ]; then
  tar czf "$out/same.tgz" -C "$out" same && rm -rf "$out/same"
fi
if [ -d "$out/costs" ]; then
  tar czf "$out/costs.tgz" -C "$out" costs && rm -rf "$out/costs"
fi
