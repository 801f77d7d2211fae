#!/usr/bin/env python3
"""mdpvi's benchmark harness.

  bench.py run --suite small|medium|large [--solvers cpu,gpu] [--repeats N]
               [--instances A,B] [--memory-study INSTANCE] [--out DIR] [--check]
               [--method auto|ovi|ii|vi|pi] [--max-iters N]
               [--launcher "mpirun -np 2"] [--parts-from N]
      Runs each (model, constants, properties) of the suite through
      `mdpvi check --json` once per solver and repeat, and writes DIR/results.json
      and DIR/results.csv: per property states, choices, transitions, the time of
      every phase, iterations, peak host memory, device memory, the result and its
      distance to ../shared/benchmarks/reference.json. With gpu among the solvers it
      also records the device's copy bandwidth (`mdpvi devices --bandwidth`).
      --check exits 1 when a result is off the reference: for the sound methods
      (mdpvi's default, auto, ovi, pi and ii) the reference must lie inside each result's
      bounds; for vi within 1e-6 relative. --method passes mdpvi's --method.
      --launcher runs mdpvi under a command (MPI ranks); --parts-from passes it on.
  bench.py same DIR_A DIR_B
      Exits 1 unless the two runs gave every property the same result and bounds,
      bit for bit (mdpvi under mpirun against one process).
  bench.py costs DIR... [--solver cpu|gpu]
      The cost table of issue 21: each run folder's solve time per instance
      (summed over its properties) and its ratio to the first folder's, with the
      median ratio; only instances where every run converged on every property.
  bench.py phases DIR... [--solver cpu|gpu]
      The per-phase table of the guide, one row per instance and run folder (in
      the order given: before, then after): build, graph (the backend's searches
      and Prob0/Prob1), SCC/system, solve and total seconds, summed over the
      instance's properties, with the peak host and device bytes.
  bench.py memory DIR [--solver gpu]
      The memory table of issue 39: per instance its states and transitions, the
      process's peak (whole, and per state and per transition), the peaks at the end
      of each stage (build, graph, and the largest over the properties of the graph
      analysis, the system and the solve), and the device's bytes: the graph's copy
      of the model and the solve's chunks, per transition.
  bench.py report DIR... [--report bench/REPORT.md]
      Writes the report (tables beside the seed thesis' published numbers and
      PRISM's times) and the PNG plots next to it, from one or more run folders.

Only the standard library, and python3-matplotlib for the plots.
"""
import argparse
import csv
import json
import os
import socket
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("MDPVI_SHARED_DIR", ROOT.parent / "shared"))
BENCH = SHARED / "benchmarks"
MDPS = "prism/mdps"

# One representative property per family, for the large instances (the thesis
# reports one solve per instance).
COIN = ['Pmin=? [ F "finished"&"all_coins_equal_0" ]']
LEADER = ['Rmax=? [ F "elected" ]']
CSMA = ['Pmin=? [ !"collision_max_backoff" U "all_delivered" ]']
WLAN = ['R{"time"}max=? [ F s1=12 & s2=12 ]']
WLAN_COLLIDE = ['Pmax=? [ true U col=k ]']


# PRISM's values: MDPs and DTMCs, and CTMCs (issue 43).
REFERENCE_FILES = ("reference.json", "reference-ctmc.json")


def references(file="reference.json"):
    return json.loads((BENCH / file).read_text())


def reference_instance(name, file="reference.json"):
    """An instance of a reference file with its own properties file."""
    ref = references(file)[name]
    return {"name": name, "model": ref["path"], "constants": ref["constants"], "properties_file": ref["properties_path"]}


def instance(name, model, constants, props):
    return {"name": name, "model": f"{MDPS}/{model}", "constants": constants, "props": props}


SUITES = {
    # Correctness in CI: every property of a small instance of each family.
    "small": lambda: [reference_instance(n) for n in ("coin2_2", "csma2_2", "leader3", "wlan0", "wlan0_collide")],
    # This machine, under 15 minutes: every reference.json instance, every property.
    "medium": lambda: [reference_instance(n) for n in references()],
    # CTMCs in CI: every property of the smallest instance of each family.
    "ctmc-small": lambda: [reference_instance(n, "reference-ctmc.json") for n in ("cluster_N4", "tandem_c15", "kanban_t2", "poll5")],
    # Every instance of reference-ctmc.json.
    "ctmc": lambda: [reference_instance(n, "reference-ctmc.json") for n in references("reference-ctmc.json")],
    # The GPU machine: the thesis' large instances, as far as memory and time allow.
    "large": lambda: [
        instance("coin6_4", "consensus/coin6.nm", "K=4", COIN),
        instance("coin6_6", "consensus/coin6.nm", "K=6", COIN),
        instance("coin8_2", "consensus/coin8.nm", "K=2", COIN),
        instance("leader7", "leader_async/leader7.nm", "", LEADER),
        instance("leader8", "leader_async/leader8.nm", "", LEADER),
        instance("csma3_4", "csma/csma3_4.nm", "", CSMA),
        instance("csma3_6", "csma/csma3_6.nm", "", CSMA),
        instance("csma4_4", "csma/csma4_4.nm", "", CSMA),
        instance("wlan5", "wlan/wlan5.nm", "TRANS_TIME_MAX=10", WLAN),
        instance("wlan6", "wlan/wlan6.nm", "TRANS_TIME_MAX=10", WLAN),
        instance("wlan6_collide", "wlan/wlan6_collide.nm", "COL=2,TRANS_TIME_MAX=10,k=2", WLAN_COLLIDE),
    ],
}


def run_mdpvi(args, timeout):
    """Runs mdpvi; returns (stdout, return code, peak resident bytes of that run, wall seconds)."""
    import signal
    import tempfile
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(args, stdout=out, stderr=err, text=True)
        deadline = start + timeout
        while True:  # os.wait4 gives this child's own rusage (peak memory)
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.send_signal(signal.SIGKILL)
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    if process.returncode not in (0, 1):
        sys.stderr.write(errors[-2000:])
    return text, process.returncode, usage.ru_maxrss * 1024, time.monotonic() - start


def unspaced(text):
    """A property's text without its white space: how the files and the reference differ."""
    return "".join(text.split())


def reference_values(name):
    """The reference values of an instance, by their property's text without white space."""
    for file in REFERENCE_FILES:
        refs = references(file)
        if name in refs:
            return {unspaced(p["property"]): p["reference"] for p in refs[name]["properties"]}
    return {}


def distance(result, reference):
    """Relative distance of a result to the reference (0 for equal Booleans)."""
    if reference is None or result is None:
        return None
    if isinstance(result, bool) or reference in ("true", "false"):
        return 0.0 if str(result).lower() == reference else float("inf")
    if isinstance(result, str) or reference == "Infinity":
        return 0.0 if str(result) == reference else float("inf")
    truth = float(reference)
    return abs(result - truth) / max(abs(truth), 1e-300) if truth != 0 else abs(result)


def rows_of(inst, solver, repeat, report, peak, wall):
    model = report["model"]
    refs = reference_values(inst["name"])
    for p in report["properties"]:
        chunks = p.get("chunks") or []
        on_gpu = [c for c in chunks if c.get("on_gpu")]
        gpu_solve = sum(c["solve_s"] for c in on_gpu)
        moved = sum(c["bytes_per_sweep"] * c["iterations"] for c in on_gpu)
        ref = refs.get(unspaced(p["property"]))
        d = distance(p["result"], ref)
        yield {
            "instance": inst["name"], "solver": solver, "repeat": repeat, "property": p["property"],
            "states": model["states"], "choices": model["choices"], "transitions": model["transitions"],
            "parse_s": model["parse_time_s"], "build_s": model["build_time_s"], "graph_s": model["graph_time_s"],
            "qualitative_s": (p.get("phases") or {}).get("qualitative_s"), "scc_s": (p.get("phases") or {}).get("scc_s"),
            "solve_s": (p.get("phases") or {}).get("solve_s"), "property_s": p["time_s"],
            "upload_s": sum(c["upload_s"] for c in chunks), "download_s": sum(c["download_s"] for c in chunks),
            "iterations": p.get("iterations"), "chunks": len(chunks), "chunks_on_gpu": len(on_gpu),
            # The graph stays on the device beside the largest chunk (issue 20).
            "device_bytes": model.get("graph_device_bytes", 0) + max((c["footprint_bytes"] for c in on_gpu), default=0),
            "achieved_bandwidth": moved / gpu_solve if gpu_solve > 0 else None,
            "peak_host_bytes": peak, "wall_s": wall, "result": p["result"], "error": p["error"],
            # Each stage's peak (the process's peak at its end; absent from older mdpvi).
            "build_peak_bytes": model.get("peak_bytes_after_build"), "graph_peak_bytes": model.get("peak_bytes_after_graph"),
            "qualitative_peak_bytes": (p.get("memory") or {}).get("qualitative_peak_host_bytes"),
            "system_peak_bytes": (p.get("memory") or {}).get("system_peak_host_bytes"),
            "solve_peak_bytes": (p.get("memory") or {}).get("solve_peak_host_bytes"),
            "graph_device_bytes": model.get("graph_device_bytes", 0),
            "solve_device_bytes": (p.get("memory") or {}).get("solve_peak_device_bytes"),
            "device_in_use_bytes": (p.get("memory") or {}).get("solve_device_in_use_bytes"),
            "lower": p.get("lower"), "upper": p.get("upper"), "device": p.get("device"),
            "reference": ref, "distance": d, "matches": matches(p, ref, d, model.get("type") == "ctmc"),
        }


def matches(p, reference, d, ctmc=False):
    """With bounds (a sound method): the reference, itself sound to 1e-9, lies between them.
    Without: within 1e-6 relative, as the unit tests ask of plain value iteration at
    a tight epsilon (at the default epsilon plain results may miss by more).
    A CTMC's references carry PRISM's own truncation error (uniformisation at epsilon
    1e-10), so there the result may also lie within its stated bound of the reference."""
    if d is None:
        return None
    if p.get("lower") is not None and reference not in ("true", "false", "Infinity"):
        truth = float(reference)
        slack = 1e-9 * abs(truth)
        if p["lower"] - slack <= truth <= p["upper"] + slack:
            return True
        return ctmc and (d <= 1e-6 or abs(p["result"] - truth) <= p["upper"] - p["lower"])
    return d <= 1e-6


def command_for(inst, mdpvi, solver, extra=()):
    args = [mdpvi, "check", str(BENCH / inst["model"])]
    if inst.get("properties_file"):
        args.append(str(BENCH / inst["properties_file"]))
    for prop in inst.get("props", []):
        args += ["--prop", prop]
    if inst["constants"]:
        args += ["--const", inst["constants"]]
    return args + ["--solver", solver, "--json", "-", *extra]


def copy_bandwidth(mdpvi):
    """The device's copy bandwidth in bytes/s, from `mdpvi devices --bandwidth` ("... 3013 GB/s")."""
    out = subprocess.run([mdpvi, "devices", "--bandwidth"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        words = line.split()
        if "GB/s" in words and words.index("GB/s") > 0:
            try:
                return float(words[words.index("GB/s") - 1]) * 1e9
            except ValueError:
                continue
    return None


def run(args):
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    solvers = args.solvers.split(",")
    rows, failures = [], []
    chosen = set(args.instances.split(",")) if args.instances else None
    for inst in SUITES[args.suite]():
        if chosen and inst["name"] not in chosen:
            continue
        for solver in solvers:
            for repeat in range(args.repeats):
                print(f"bench: {inst['name']} {solver} #{repeat + 1}", file=sys.stderr, flush=True)
                extra = ["--method", args.method] if args.method else []
                extra += ["--max-iters", str(args.max_iters)] if args.max_iters else []
                extra += ["--gpu-system", args.gpu_system] if args.gpu_system and solver == "gpu" else []
                extra += ["--parts-from", str(args.parts_from)] if args.parts_from is not None else []
                launcher = shlex.split(args.launcher) if args.launcher else []
                out, rc, peak, wall = run_mdpvi(launcher + command_for(inst, args.mdpvi, solver, extra), args.timeout)
                if rc not in (0, 1) or not out.strip():
                    failures.append(f"{inst['name']} {solver}: mdpvi exit {rc}")
                    continue
                rows += list(rows_of(inst, solver, repeat, json.loads(out), peak, wall))
    study = []
    if args.memory_study:
        study = memory_study(args, next(i for i in SUITES["large"]() + SUITES["medium"]() if i["name"] == args.memory_study))
    meta = {"host": socket.gethostname(), "suite": args.suite, "solvers": solvers, "repeats": args.repeats,
            "method": args.method or "default", "gpu_system": args.gpu_system or "auto",
            "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d %H:%M"),
            "copy_bandwidth": copy_bandwidth(args.mdpvi) if "gpu" in solvers else None,
            "device": next((r["device"] for r in rows if r.get("device")), None)}
    (out_dir / "results.json").write_text(json.dumps({"meta": meta, "rows": rows, "memory_study": study}, indent=1))
    with open(out_dir / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["instance"])
        writer.writeheader()
        writer.writerows(rows)
    wrong = [r for r in rows if r["matches"] is False or r["error"]]
    for r in wrong:
        failures.append(f"{r['instance']} {r['solver']}: {r['property']}: {r['result']} vs {r['reference']} {r['error'] or ''}")
    for f in failures:
        print("bench: " + f, file=sys.stderr)
    print(f"bench: {len(rows)} results in {out_dir}, {len(failures)} failures", file=sys.stderr)
    return 1 if args.check and failures else 0


def same(args):
    """Whether two runs answered alike, bit for bit: each property's result and bounds
    (an MPI run against one process, say)."""
    def answers(run_dir):
        rows = json.loads((Path(run_dir) / "results.json").read_text())["rows"]
        return {(r["instance"], r["property"]): (r["result"], r["lower"], r["upper"]) for r in rows}
    a, b = answers(args.runs[0]), answers(args.runs[1])
    differ = [k for k in a.keys() | b.keys() if a.get(k) != b.get(k)]
    for k in sorted(differ):
        print(f"bench: {k[0]} {k[1]}: {a.get(k)} against {b.get(k)}", file=sys.stderr)
    print(f"bench: {len(a)} and {len(b)} answers, {len(differ)} differ", file=sys.stderr)
    return 1 if differ or not a else 0


def solve_times(run_dir, solver):
    """{instance: summed solve seconds} of a run folder, for instances whose every
    property converged without error (non-converged runs are not compared)."""
    data = json.loads((Path(run_dir) / "results.json").read_text())
    times, failed = {}, set()
    for r in data["rows"]:
        if r["solver"] != solver or r["repeat"] != 0:
            continue
        if r["error"]:  # non-convergence is an error too
            failed.add(r["instance"])
        times[r["instance"]] = times.get(r["instance"], 0.0) + (r["solve_s"] or 0.0)
    return {k: v for k, v in times.items() if k not in failed}, data["meta"].get("method", "default")


def costs(args):
    """Prints a markdown table: solve seconds per instance and method, each ratio to the first run's."""
    import statistics
    runs = [solve_times(d, args.solver) for d in args.runs]
    base = runs[0][0]
    names = [n for n in base if all(n in times for times, _ in runs)]
    print("| instance | " + " | ".join(f"{m} solve s" for _, m in runs) + " | " +
          " | ".join(f"{m} / {runs[0][1]}" for _, m in runs[1:]) + " |")
    print("|---" * (2 * len(runs)) + "|")
    ratios = [[] for _ in runs[1:]]
    for n in names:
        cells = [f"{times[n]:.3f}" for times, _ in runs]
        for i, (times, _) in enumerate(runs[1:]):
            r = times[n] / base[n] if base[n] > 0 else float("nan")
            ratios[i].append(r)
            cells.append(f"{r:.2f}")
        print(f"| {n} | " + " | ".join(cells) + " |")
    medians = [f"{statistics.median([r for r in rs if r == r]):.2f}" if rs else "-" for rs in ratios]
    print("| **median** | " + " | ".join("" for _ in runs) + " | " + " | ".join(medians) + " |")
    return 0


def phases(args):
    """Prints the per-phase table (markdown): a row per instance and run folder."""
    print("| instance | run | build s | graph s | SCC/system s | solve s | total s | peak host GB | peak device GB |")
    print("|---" * 9 + "|")
    runs = [(Path(d).name, json.loads((Path(d) / "results.json").read_text())["rows"]) for d in args.runs]
    names = dict.fromkeys(r["instance"] for _, rows in runs for r in rows)
    total = lambda rs, key: sum(r.get(key) or 0 for r in rs)
    for name in names:
        for run_name, rows in runs:
            rs = [r for r in rows if r["instance"] == name and r["solver"] == args.solver and r["repeat"] == 0]
            if not rs:
                continue
            first = rs[0]
            graph = (first.get("graph_s") or 0) + total(rs, "qualitative_s")
            whole = (first.get("build_s") or 0) + (first.get("graph_s") or 0) + total(rs, "property_s")
            unsolved = "" if all(r.get("error") is None for r in rs) else " (error)"
            device = max((r.get("device_bytes") or 0 for r in rs), default=0)
            print(f"| {name} | {run_name}{unsolved} | {first.get('build_s') or 0:.3f} | {graph:.3f} | {total(rs, 'scc_s'):.3f} |"
                  f" {total(rs, 'solve_s'):.3f} | {whole:.3f} | {max(r.get('peak_host_bytes') or 0 for r in rs) / 1e9:.2f} |"
                  f" {device / 1e9:.2f} |")
    return 0


def memory(args):
    """Prints issue 39's memory table (markdown) of a run folder: a row per instance."""
    data = json.loads((Path(args.run) / "results.json").read_text())
    rows = [r for r in data["rows"] if r["solver"] == args.solver and r["repeat"] == 0]
    gb = lambda b: f"{b / 1e9:.2f}" if b else "-"
    most = lambda rs, key: max((r.get(key) or 0 for r in rs), default=0)
    print("| instance | states | transitions | peak host GB | host B/state | host B/transition | build GB | graph GB |"
          " graph analysis GB | system GB | solve GB | device graph GB | device solve GB | device in use GB |"
          " device B/transition |")
    print("|---" * 15 + "|")
    for name in dict.fromkeys(r["instance"] for r in rows):
        rs = [r for r in rows if r["instance"] == name]
        first = rs[0]
        peak, device = most(rs, "peak_host_bytes"), first.get("graph_device_bytes") or 0
        solve_device = most(rs, "solve_device_bytes")
        # Measured (the device's memory in use at the solve's end) where mdpvi reports
        # it; else the estimate: the graph's copy beside the largest chunk.
        in_use = most(rs, "device_in_use_bytes")
        on_device = in_use or device + solve_device
        cells = [name, str(first["states"]), str(first["transitions"]), gb(peak),
                 f"{peak / first['states']:.0f}", f"{peak / max(first['transitions'], 1):.1f}",
                 gb(first.get("build_peak_bytes")), gb(first.get("graph_peak_bytes")), gb(most(rs, "qualitative_peak_bytes")),
                 gb(most(rs, "system_peak_bytes")), gb(most(rs, "solve_peak_bytes")), gb(device), gb(solve_device),
                 gb(in_use), f"{on_device / max(first['transitions'], 1):.1f}"]
        print("| " + " | ".join(cells) + " |")
    return 0


def memory_study(args, inst):
    """The same instance with the device budget at 100%, 50%, 25% and 12.5% of its footprint."""
    out, rc, _, _ = run_mdpvi(command_for(inst, args.mdpvi, "gpu"), args.timeout)
    footprint = max(c["footprint_bytes"] for p in json.loads(out)["properties"] for c in (p.get("chunks") or [{"footprint_bytes": 0}]))
    study = []
    for share in (1.0, 0.5, 0.25, 0.125):
        limit = max(int(footprint * share), 1)
        print(f"bench: memory study {inst['name']} {share:.3f}", file=sys.stderr, flush=True)
        out, rc, _, wall = run_mdpvi(command_for(inst, args.mdpvi, "gpu", ["--gpu-memory-limit", str(limit)]), args.timeout)
        for p in json.loads(out)["properties"]:
            chunks = p.get("chunks") or []
            study.append({"instance": inst["name"], "share": share, "limit_bytes": limit, "property": p["property"],
                          "chunks": len(chunks), "chunks_on_gpu": sum(1 for c in chunks if c["on_gpu"]),
                          "solve_s": (p.get("phases") or {}).get("solve_s"), "result": p["result"]})
    return study


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--suite", choices=SUITES, default="small")
    r.add_argument("--solvers", default="cpu")
    r.add_argument("--repeats", type=int, default=1)
    r.add_argument("--mdpvi", default=str(ROOT / "build/tools/mdpvi"))
    r.add_argument("--out", default=str(ROOT / "bench/runs/latest"))
    r.add_argument("--timeout", type=int, default=1800)
    r.add_argument("--memory-study", metavar="INSTANCE")
    r.add_argument("--instances", help="comma-separated: only these instances of the suite")
    r.add_argument("--check", action="store_true")
    r.add_argument("--method", choices=("auto", "ovi", "ii", "vi", "pi"), help="mdpvi's --method (default: mdpvi's, auto)")
    r.add_argument("--max-iters", type=int, help="mdpvi's --max-iters (the same for every method compared)")
    r.add_argument("--gpu-system", choices=("auto", "copy", "view"), help="mdpvi's --gpu-system (GPU runs)")
    r.add_argument("--launcher", help='a command mdpvi runs under, e.g. "mpirun -np 2"')
    r.add_argument("--parts-from", type=int, help="mdpvi's --parts-from")
    s = sub.add_parser("same", help="exit 1 unless two runs' answers are the same bit for bit")
    s.add_argument("runs", nargs=2)
    m = sub.add_parser("memory")
    m.add_argument("run")
    m.add_argument("--solver", default="gpu")
    c = sub.add_parser("costs")
    c.add_argument("runs", nargs="+")
    c.add_argument("--solver", default="cpu")
    f = sub.add_parser("phases")
    f.add_argument("runs", nargs="+")
    f.add_argument("--solver", default="gpu")
    p = sub.add_parser("report")
    p.add_argument("runs", nargs="+")
    p.add_argument("--report", default=str(ROOT / "bench/REPORT.md"))
    args = parser.parse_args()
    if args.command == "run":
        return run(args)
    if args.command == "costs":
        return costs(args)
    if args.command == "same":
        return same(args)
    if args.command == "memory":
        return memory(args)
    if args.command == "phases":
        return phases(args)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from report import write_report  # tools/bench/report.py
    return write_report([Path(d) for d in args.runs], Path(args.report), BENCH)


if __name__ == "__main__":
    sys.exit(main())
