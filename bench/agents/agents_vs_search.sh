#!/usr/bin/env bash
# The agents strategy and the optimisation memory against refine, beam and best-of-n at equal
# token budget (issue 20, docs/performance.md "Agents and memory"); turns are unbounded so the
# budget alone ends every run. Offline policy; one run per (configuration, task, seed), side by
# side in one session. Memory configurations share one
# workspace per (configuration, task), so seed k's prompts carry the lessons of seeds 1..k-1.
#
# usage: bench/agents/agents_vs_search.sh KILN_CLI OUT_DIR [TOKENS] [SEEDS] [BACKEND] [TASKS]
#   TASKS: comma-separated (default vector_add,softmax,matmul); SANDBOXES (env) per run;
#   DB_DIR (env): where the workspaces go (default OUT_DIR).
set -euo pipefail
cli=$1
out=$2
tokens=${3:-60000}
seeds=${4:-3}
backend=${5:-cpu}
tasks=${6:-vector_add,softmax,matmul}
sandboxes=${SANDBOXES:-2}
dbs=${DB_DIR:-$out} # the workspaces (DB_DIR keeps them out of a results folder)
mkdir -p "$out" "$dbs"
configs=(
    "best-of-n|best-of-n|"
    "refine|refine|--param turns=100"
    "beam|beam|--param beams=2 --param children=2"
    "refine+memory|refine|--param turns=100 --param memory=4"
    "beam+memory|beam|--param beams=2 --param children=2 --param memory=4"
    "agents|agents|--param width=2 --param turns=100"
    "agents+memory|agents|--param width=2 --param turns=100 --param memory=4"
)
for task in ${tasks//,/ }; do
    for seed in $(seq 1 "$seeds"); do
        for entry in "${configs[@]}"; do
            IFS='|' read -r label strategy params <<< "$entry"
            # Memory runs of one task share a workspace; the others get one per run.
            if [[ $label == *memory* ]]; then db="$dbs/$label-$task.db"; else db="$dbs/$label-$task-$seed.db"; fi
            # shellcheck disable=SC2086
            "$cli" run --task "$task" --strategy "$strategy" $params --budget-axis tokens \
                --budget "$tokens" --seed "$seed" --backend "$backend" --db "$db" \
                --param "sandboxes=$sandboxes" --json > "$out/${label//+/-}.$task.$seed.json" \
                2> "$out/${label//+/-}.$task.$seed.log"
        done
        echo "done $task seed $seed" >&2
    done
done
python3 "$(dirname "$0")/agents_table.py" "$out"
