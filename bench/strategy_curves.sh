#!/usr/bin/env bash
# Width vs depth vs structured search at equal evaluation budget (issue 6, docs/performance.md).
# For every core task: `kiln-cli compare` of best-of-n (width), refine (depth) and beam, greedy,
# mcts, evolve (structured) over SEEDS seeds, offline policy, CPU backend. Writes one compare
# document per task into OUT_DIR, then prints the table with bench/strategy_table.py.
#
# usage: bench/strategy_curves.sh KILN_CLI OUT_DIR [BUDGET] [SEEDS] [SANDBOXES]
set -euo pipefail
cli=$1
out=$2
budget=${3:-32}
seeds=${4:-5}
sandboxes=${5:-2}
mkdir -p "$out"
strategies=${STRATEGIES:-best-of-n,refine,beam,greedy,mcts,evolve}
for task in vector_add reduce_sum softmax layernorm matmul transpose; do
    "$cli" compare --task "$task" --strategies "$strategies" --budget "$budget" --seeds "$seeds" \
        --backend cpu --db "$out/curves.db" --param "sandboxes=$sandboxes" --json \
        > "$out/compare-$task.json" 2> "$out/compare-$task.log"
    echo "done $task" >&2
done
python3 "$(dirname "$0")/strategy_table.py" "$out"/compare-*.json
