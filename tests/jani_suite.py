#!/usr/bin/env python3
"""The QVBS JANI files in ../shared/benchmarks/jani checked with their own properties
against the results published beside them (each family's index.json): every instance
up to MAX_STATES states whose file is here, every property with a published value.
Exit 1 on a state count or a result that differs, or a run that fails.

    python3 tests/jani_suite.py MDPVI JANI_DIR [MAX_STATES]

A sound result passes when the published value (or interval) meets its bounds,
widened by 1e-9 relative (the published values are Storm's, some exact, some not); a
result without bounds when it is within 1e-6 relative.
"""
import json
import os
import subprocess
import sys


def published(value):
    """A number, a Boolean, or a published interval (low, high) (Storm's sound results)."""
    if isinstance(value, dict):
        return value["approx"] if "approx" in value else (value["lower"], value["upper"])
    return value


def agrees(entry, reference):
    result = entry.get("result")
    if isinstance(reference, bool) or isinstance(result, bool):
        return result == reference
    if result is None:
        return False
    low, high = reference if isinstance(reference, tuple) else (reference, reference)
    slack = 1e-9 * max(1.0, abs(high))
    lower, upper = entry.get("lower"), entry.get("upper")
    if lower is not None and upper is not None:
        return lower - slack <= high and low <= upper + slack  # the two intervals meet
    return low - 1e-6 * max(1.0, abs(low)) <= result <= high + 1e-6 * max(1.0, abs(high))


def check_instance(mdpvi, path, setting, max_states):
    """Failures of one instance (file and open parameter values), as lines; None: skipped."""
    counts = [s["number"] for s in setting.get("states", []) if "number" in s]
    if not counts or counts[0] > max_states or not os.path.exists(path):
        return None
    constants = ",".join(f"{v['name']}={v['value']}" for v in setting.get("values", []))
    command = [mdpvi, "check", path, "--json", "-"] + (["--const", constants] if constants else [])
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    where = f"{os.path.basename(path)} {constants}".strip()
    if run.returncode != 0:
        return [f"{where}: exit {run.returncode}: {run.stderr.strip()[-300:]}"]
    report = json.loads(run.stdout)
    failures = []
    if report["model"]["states"] != counts[0]:
        failures.append(f"{where}: {report['model']['states']} states, published {counts[0]}")
    by_name = {}
    for entry in report["properties"]:
        text = entry["property"]
        if text.startswith('"'):
            by_name[text.split('"')[1]] = entry
    for result in setting.get("results", []):
        entry = by_name.get(result["property"])
        reference = published(result["value"])
        if entry is None:
            failures.append(f"{where}: property {result['property']} not checked")
        elif entry.get("error"):
            failures.append(f"{where}: {result['property']}: {entry['error']}")
        elif not agrees(entry, reference):
            failures.append(f"{where}: {result['property']}: {entry.get('result')} "
                            f"[{entry.get('lower')}, {entry.get('upper')}], published {reference}")
    return failures


def main():
    mdpvi, root = sys.argv[1], sys.argv[2]
    max_states = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
    checked, failures = 0, []
    for kind in sorted(os.listdir(root)):
        for family in sorted(os.listdir(os.path.join(root, kind))):
            index_path = os.path.join(root, kind, family, "index.json")
            if not os.path.exists(index_path):
                continue
            with open(index_path) as f:
                index = json.load(f)
            for model in index["files"]:
                path = os.path.join(root, kind, family, model["file"])
                for setting in model.get("open-parameter-values", []):
                    found = check_instance(mdpvi, path, setting, max_states)
                    if found is None:
                        continue
                    checked += 1
                    failures += found
                    print(f"{family} {model['file']}: {'ok' if not found else 'FAILED'}", flush=True)
    for line in failures:
        print("FAILED " + line)
    print(f"{checked} instances checked, {len(failures)} failures")
    if checked == 0:
        print("no instance checked: is the JANI folder there?")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
