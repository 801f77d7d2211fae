#!/usr/bin/env python3
"""One line per run for bench/gpu-run.sh's phases part: mdpvi check's JSON (first
property, first chunk) on stdin, the run's name as the argument."""
import json
import sys

d = json.load(sys.stdin)
p = d["properties"][0]
c = p["chunks"][0] if p.get("chunks") else {}
ph = p["phases"]
build = d["model"]["build_time_s"]
print(f"{sys.argv[1]}: build {build:.3f} prob01 {ph.get('qualitative_s', 0):.3f} scc {ph.get('scc_s', 0):.3f} "
      f"solve {ph['solve_s']:.3f} total {build + p['time_s']:.3f} | on_gpu {c.get('on_gpu')} "
      f"device_solve {c.get('solve_s', 0):.3f} sweeps {p['iterations']} chunk_iterations {c.get('iterations')} "
      f"lanes {c.get('group_lanes')} result {p['result']:.10g}")
