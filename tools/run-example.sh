#!/usr/bin/env bash
# The main job on the model shipped in models/: build mdpvi, then check the backoff
# protocol (1,048,582 states) for every deadline from 8 to 24 slots, 4 apart: one
# build, a table of results per property. Extra arguments go to mdpvi check.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
./build/tools/mdpvi check models/backoff/backoff.nm models/backoff/backoff.props --const deadline=8:4:24 "$@"
