#!/usr/bin/env bash
# The main job on the model shipped in models/: build mdpvi, then check the resend protocol.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
./build/tools/mdpvi check models/resend/resend.nm models/resend/resend.props "$@"
