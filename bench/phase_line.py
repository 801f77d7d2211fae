#!/usr/bin/env python3
"""One line per run for bench/gpu-run.sh's phases part: mdpvi check's JSON (first
property, its first chunk, how many chunks were cut on the device and the GPUs they
took turns on) on stdin, the run's name as the argument. total = build + graph backend
+ the property's time: the whole run but parsing."""
import json
import sys

d = json.load(sys.stdin)
p = d["properties"][0]
chunks = p.get("chunks") or []
c = chunks[0] if chunks else {}
ph = p["phases"]
build = d["model"]["build_time_s"]
graph = d["model"].get("graph_time_s", 0)  # the graph backend, once per model
# The property's time outside its phases: its state formulas, the values of the
# decided states, the solution scattered back into the model's states.
rest = p["time_s"] - sum(ph.values())
print(f"{sys.argv[1]}: build {build:.3f} graph {graph:.3f} prob01 {ph.get('qualitative_s', 0):.3f} "
      f"scc {ph.get('scc_s', 0):.3f} solve {ph['solve_s']:.3f} rest {rest:.3f} total {build + graph + p['time_s']:.3f} "
      f"| on_gpu {c.get('on_gpu')} devices {c.get('devices')} "
      f"device_solve {c.get('solve_s', 0):.3f} sweeps {p['iterations']} chunk_iterations {c.get('iterations')} "
      f"lanes {c.get('group_lanes')} result {p['result']:.10g} "
      f"| chunks {len(chunks)} cut {sum(1 for k in chunks if k.get('cut_on_device'))} "
      f"gpus {sorted({k.get('gpu', 0) for k in chunks if k.get('on_gpu')})}")
