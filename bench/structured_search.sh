#!/usr/bin/env bash
# Structured search with parameters sized to the budget (follow-up of strategy_curves.sh, whose
# defaults let evolve's first population swallow the whole budget). Per task and strategy one
# `kiln-cli compare` document in OUT_DIR, then the table of bench/strategy_table.py.
#
# usage: bench/structured_search.sh KILN_CLI OUT_DIR [BUDGET] [SEEDS] [SANDBOXES] [TASKS]
set -euo pipefail
cli=$1
out=$2
budget=${3:-40}
seeds=${4:-5}
sandboxes=${5:-2}
tasks=${6:-softmax,layernorm,matmul}
mkdir -p "$out"
declare -A params=(
    [best-of-n]="--param n=1000"
    [refine]="--param width=3 --param turns=14"
    [beam]="--param beams=3 --param children=3"
    [evolve]="--param islands=2 --param population=6"
)
for task in ${tasks//,/ }; do
    for strategy in best-of-n refine beam evolve; do
        # shellcheck disable=SC2086
        "$cli" compare --task "$task" --strategies "$strategy" ${params[$strategy]} \
            --budget "$budget" --seeds "$seeds" --backend cpu --db "$out/structured.db" \
            --param "sandboxes=$sandboxes" --json > "$out/compare-$task-$strategy.json" \
            2> "$out/compare-$task-$strategy.log"
        echo "done $task $strategy" >&2
    done
done
python3 "$(dirname "$0")/strategy_table.py" "$out"/compare-*.json
