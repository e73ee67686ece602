#!/usr/bin/env bash
# Installs what is missing, builds the release preset and runs the main job on the embedded
# default: a beam search on softmax with the offline (simulated) policy, judged on the CPU
# backend (no GPU needed), stored in kiln-demo.db — then opens the workbench on that run.
# Without a display it prints the run's summary and renders the window to kiln-demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"
bin=build/release/bin
db=${KILN_DEMO_DB:-kiln-demo.db}
json=$("$bin/kiln-cli" run --task softmax --strategy beam --param beams=3 --param children=3 \
    --budget 30 --seed 1 --db "$db" --json)
run=$(printf '%s' "$json" | grep -o '"run_id":[0-9]*' | cut -d: -f2)
"$bin/kiln-cli" report --db "$db" --run "$run"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$bin/kiln" --db "$db" --run "$run"
fi
QT_QPA_PLATFORM=offscreen "$bin/kiln" --db "$db" --run "$run" --screenshot kiln-demo.png
echo "No display: the workbench was rendered to kiln-demo.png (open $db with $bin/kiln later)."
