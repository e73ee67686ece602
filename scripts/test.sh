#!/usr/bin/env bash
# Installs what is missing, builds the dev preset and runs every test (CUDA execution tests
# skip themselves when no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset dev
cmake --build --preset dev -j "$(nproc)"
ctest --preset dev "$@"
