#!/usr/bin/env bash
# Installs what is missing, builds the release preset and runs the main job: a search on the
# embedded default (offline simulated policy; CUDA backend when a GPU is usable, else CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"
exec build/release/bin/kiln-cli tasks
