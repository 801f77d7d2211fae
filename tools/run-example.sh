#!/usr/bin/env bash
# The main job on the model shipped in models/: build mdpvi, then check the die.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
./build/tools/mdpvi check --explicit models/die/die models/die/die.props "$@"
