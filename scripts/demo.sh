#!/usr/bin/env bash
# Installs what is missing, builds the release preset and runs the main job on the embedded
# default: a beam search on softmax with the offline (simulated) policy, judged on the CPU
# backend, stored in kiln-demo.db, then summarised.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"
db=${KILN_DEMO_DB:-kiln-demo.db}
build/release/bin/kiln-cli run --task softmax --strategy beam --budget 24 --seed 1 --db "$db"
exec build/release/bin/kiln-cli report --db "$db"
