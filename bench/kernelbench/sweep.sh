#!/usr/bin/env bash
# Judge each KernelBench problem's own reference as a candidate, level by level, JOBS at once.
# Usage: sweep.sh TASKS_DIR OUT_DIR [LEVELS] [JOBS]
#   TASKS_DIR  problems imported by `kiln-cli import-kernelbench --out TASKS_DIR --no-lint`
#   OUT_DIR    one JSON result per problem, levels.tsv (wall time per level), summary from sweep_table.py
# KILN_CLI (default: kiln-cli on PATH) is the command line tool to run, with any words before it
# (for example "env LD_LIBRARY_PATH=DIR build/bin/kiln-cli").
# In parts: a problem that already has a result in OUT_DIR is skipped, and with
# SWEEP_DEADLINE=SECONDS no problem is started after that many seconds, so a sweep longer than one
# session's command limit runs as several calls over the same OUT_DIR (carried between them).
# levels.tsv then holds one line per level and part; sweep_table.py adds them up.
set -uo pipefail
tasks=${1:?tasks dir}
out=${2:?output dir}
levels=${3:-"1 2 3"}
jobs=${4:-4}
cli=${KILN_CLI:-kiln-cli}
mkdir -p "$out"
deadline=$(python3 -c "import time; print(time.time() + ${SWEEP_DEADLINE:-1e9})")
export tasks out cli deadline

judge_one() {
    local task=$1
    grep -qs '"verdict"' "$out/$task.json" && return 0
    python3 -c "import sys, time; sys.exit(time.time() > $deadline)" || return 0
    local started=$(date +%s.%N)
    $cli eval --backend pytorch --tasks-dir "$tasks" --task "$task" --json \
        "$tasks/$task/reference.py" > "$out/$task.json" 2> "$out/$task.err"
    local rc=$?
    echo -e "$task\t$rc\t$(python3 -c "import time; print(round(time.time() - $started, 1))")" >> "$out/problems.tsv"
}
export -f judge_one

for level in $levels; do
    before=$(cat "$out/problems.tsv" 2>/dev/null | grep -c "^kb${level}_")
    started=$(date +%s.%N)
    ls "$tasks" | grep "^kb${level}_" | xargs -P "$jobs" -I{} bash -c 'judge_one {}'
    ended=$(date +%s.%N)
    count=$(( $(cat "$out/problems.tsv" 2>/dev/null | grep -c "^kb${level}_") - before ))
    [ "$count" -gt 0 ] &&
        echo -e "$level\t$count\t$(python3 -c "print(round($ended - $started, 1))")" >> "$out/levels.tsv"
done
python3 "$(dirname "$0")/sweep_table.py" "$out"
