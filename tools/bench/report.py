"""bench/REPORT.md and its plots, from the harness's run folders (tools/bench/bench.py)."""
import json
from pathlib import Path

PHASES = ["parse_s", "build_s", "graph_s", "qualitative_s", "scc_s", "solve_s"]


def load(runs):
    """All rows of all runs, each with its run's meta attached."""
    rows, studies, metas = [], [], []
    for run in runs:
        data = json.loads((run / "results.json").read_text())
        meta = dict(data["meta"], run=run.name)
        metas.append(meta)
        rows += [dict(r, run=run.name, host=meta["host"]) for r in data["rows"]]
        studies += [dict(s, run=run.name) for s in data.get("memory_study", [])]
    return rows, studies, metas


def fastest(rows, **where):
    """The row with the smallest property time among the matching repeats."""
    match = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
    return min(match, key=lambda r: r["property_s"]) if match else None


def seconds(x):
    return "" if x is None else f"{x:.3f}"


def table(header, lines):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(str(c) for c in line) + " |" for line in lines]
    return "\n".join(out) + "\n"


def thesis_section(rows, published):
    lines, points = [], []
    for name, pub in published.items():
        if name.startswith("_") or "thesis_cpu_ms" not in pub:
            continue
        gpu = [r for r in rows if r["instance"] == name and r["solver"] == "gpu"]
        cpu = [r for r in rows if r["instance"] == name and r["solver"] == "cpu" and r["run"] == (gpu or [{}])[0].get("run")]
        if not gpu:  # the thesis' table compares with the GPU machine's runs only
            continue
        prop = gpu[0]["property"]
        c = fastest(cpu, property=prop)
        g = fastest(gpu, property=prop)
        ours = c["solve_s"] / g["solve_s"] if c and g and g["solve_s"] else None
        theirs = pub["thesis_cpu_ms"] / pub["thesis_gpu_ms"]
        states = (g or c)["states"]
        lines.append([name, f"{states:,}", f"{(g or c)['transitions']:,}", f"{pub['thesis_cpu_ms'] / 1000:.1f}",
                      f"{pub['thesis_gpu_ms'] / 1000:.1f}", f"{theirs:.1f}x", seconds(c and c["solve_s"]),
                      seconds(g and g["solve_s"]), f"{ours:.1f}x" if ours else "", prop])
        if ours:
            points.append((name, (g or c)["transitions"], ours, theirs))
    text = ("## The seed thesis' table, our numbers beside it\n\n"
            "Thesis: GTX 670 (2 GB) against its CPU, solver time in seconds, as published "
            "(../shared/benchmarks/published.json). Ours: the GPU machine (H100, 16 cores), solve phase of the "
            "property shown (topological value iteration, default relative 1e-6), oneTBB on 16 threads against "
            "the GPU. The thesis' property per model is not known to us; ours is one representative property.\n\n")
    text += table(["instance", "states", "transitions", "thesis CPU s", "thesis GPU s", "thesis factor",
                   "our CPU s", "our GPU s", "our factor", "property"], lines)
    return text, points


def prism_section(rows, reference):
    lines = []
    for name, ref in reference.items():
        cpu = [r for r in rows if r["instance"] == name and r["solver"] == "cpu" and r["run"].startswith("dev")]
        if not cpu:
            continue
        build = min(r["parse_s"] + r["build_s"] for r in cpu)
        prism_check = sum(p["prism_default_vi_check_s"] or 0 for p in ref["properties"])
        ours = sum(fastest(cpu, property=p["property"])["property_s"] for p in ref["properties"]
                   if fastest(cpu, property=p["property"]))
        ok = all(r["matches"] is not False and not r["error"] for r in cpu)
        lines.append([name, f"{ref['states']:,}", f"{ref['prism_explicit_build_s']:.3f}", seconds(build),
                      f"{prism_check:.3f}", seconds(ours), "yes" if ok else "NO"])
    text = ("## Our CPU path against PRISM 4.10 (reference.json)\n\n"
            "PRISM's explicit-engine build time and its default value iteration's check times (summed over the "
            "instance's properties), as recorded in reference.json on another machine; ours on the machine named "
            "in the run, CPU solver, every property of the file. 'matches': every result within the tolerance of "
            "the sound reference (bounds containing it with a sound method, mdpvi's default).\n\n")
    return text + table(["instance", "states", "PRISM build s", "our build s", "PRISM check s (sum)",
                         "our check s (sum)", "matches"], lines)


def phase_section(rows):
    lines, bars = [], []
    seen = set()
    for r in sorted(rows, key=lambda r: -r["transitions"]):
        key = (r["instance"], r["solver"])
        if key in seen or r["solver"] not in ("gpu", "cpu"):
            continue
        seen.add(key)
        values = [r[p] or 0.0 for p in PHASES]
        total = sum(values)
        if total <= 0:
            continue
        lines.append([r["instance"], r["solver"], seconds(total)] + [f"{100 * v / total:.0f}%" for v in values])
        bars.append((f"{r['instance']} {r['solver']}", values))
    text = ("## Where the time goes\n\nPer instance and solver, the first property's phases (parse, build and "
            "graph are shared by all properties of a run; qualitative is Prob0/Prob1, scc the SCCs and the "
            "maybe-state system, solve the value iteration).\n\n")
    return text + table(["instance", "solver", "total s"] + [p[:-2] for p in PHASES], lines[:16]), bars[:12]


def bandwidth_section(rows, metas):
    copy = next((m["copy_bandwidth"] for m in metas if m.get("copy_bandwidth")), None)
    lines, bars = [], []
    for r in rows:
        if r["solver"] != "gpu" or not r["achieved_bandwidth"]:
            continue
        share = f"{100 * r['achieved_bandwidth'] / copy:.0f}%" if copy else ""
        lines.append([r["instance"], r["property"], f"{r['achieved_bandwidth'] / 1e9:.0f}", share])
        bars.append((r["instance"], r["achieved_bandwidth"] / 1e9))
    text = "## Achieved bandwidth of the GPU sweep\n\n"
    text += (f"Device copy bandwidth measured in the same run: {copy / 1e9:.0f} GB/s.\n\n" if copy else
             "No copy bandwidth in these runs.\n\n")
    return text + table(["instance", "property", "GB/s", "of copy"], lines), bars, copy


def study_section(studies):
    if not studies:
        return ""
    lines = [[s["instance"], f"{100 * s['share']:.1f}%", f"{s['limit_bytes']:,}", s["chunks"], s["chunks_on_gpu"],
              seconds(s["solve_s"]), s["result"]] for s in studies]
    return ("## Memory-limit study\n\nThe same instance with `--gpu-memory-limit` at a share of its footprint "
            "(chunks are planned for half the budget: two are on the device at once).\n\n" +
            table(["instance", "budget", "bytes", "chunks", "on GPU", "solve s", "result"], lines))


def save(plt, fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plots(folder, points, bars, bandwidth, copy):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "Plots need python3-matplotlib (apt-get install python3-matplotlib).\n"
    if points:
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.scatter([p[1] for p in points], [p[2] for p in points], label="mdpvi (H100 vs 16-core CPU)")
        ax.scatter([p[1] for p in points], [p[3] for p in points], marker="x", label="thesis (GTX 670 vs CPU)")
        for name, x, y, _ in points:
            ax.annotate(name, (x, y), fontsize=7)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("transitions")
        ax.set_ylabel("GPU speed-up over CPU (solve)")
        ax.legend(fontsize=7)
        save(plt, fig, folder / "speedup.png")
    if bars:
        fig, ax = plt.subplots(figsize=(7, 4))
        bottom = [0.0] * len(bars)
        for i, phase in enumerate(PHASES):
            heights = [b[1][i] for b in bars]
            ax.bar(range(len(bars)), heights, bottom=bottom, label=phase[:-2])
            bottom = [x + h for x, h in zip(bottom, heights)]
        ax.set_xticks(range(len(bars)), [b[0] for b in bars], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("seconds")
        ax.legend(fontsize=7)
        save(plt, fig, folder / "phases.png")
    if bandwidth:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.bar(range(len(bandwidth)), [b[1] for b in bandwidth])
        if copy:
            ax.axhline(copy / 1e9, color="k", linestyle="--", label="copy bandwidth")
            ax.legend(fontsize=7)
        ax.set_xticks(range(len(bandwidth)), [b[0] for b in bandwidth], rotation=45, ha="right", fontsize=7)
        ax.set_ylabel("GB/s")
        save(plt, fig, folder / "bandwidth.png")
    return "Plots: ![speed-up](speedup.png) ![phases](phases.png) ![bandwidth](bandwidth.png)\n"


def write_report(runs, report, bench):
    rows, studies, metas = load(runs)
    published = json.loads((bench / "published.json").read_text())
    reference = json.loads((bench / "reference.json").read_text())
    thesis, points = thesis_section(rows, published)
    phases, bars = phase_section(rows)
    bandwidth, bw_bars, copy = bandwidth_section(rows, metas)
    machines = table(["run", "host", "cores", "suite", "solvers", "date"],
                     [[m["run"], m["host"], m["cpus"], m["suite"], ",".join(m["solvers"]), m["date"]] for m in metas])
    text = ("# mdpvi benchmark report\n\nRegenerated by `python3 tools/bench/bench.py report " +
            " ".join(f"bench/runs/{r.name}" for r in runs) + "` from the runs below; every number comes from "
            "the machine of its run: runs named gpu-* ran on the GPU machine (one H100, 16 cores), runs named dev-* on the 2-core development machine without a GPU.\n\n" +
            machines + "\n" + plots(report.parent, points, bars, bw_bars, copy) + "\n" + thesis + "\n" +
            prism_section(rows, reference) + "\n" + phases + "\n" + bandwidth + "\n" + study_section(studies))
    report.write_text(text)
    print(f"report: {report}")
    return 0
