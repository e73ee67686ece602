#!/usr/bin/env bash
# Installs what is missing, builds the ci preset (the dev build without debug info and
# benchmarks) and runs every test (CUDA execution tests
# skip themselves when no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset ci
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci "$@"
