#!/usr/bin/env bash
# Width, depth and structured search at equal evaluation budget, and the two experiments that
# decide why the ordering differs from the field's (issue 6, docs/performance.md):
#   main    every task x strategy x seed at BUDGET evaluations, offline policy at its defaults
#           (variant "base");
#   policy  SWEEP_STRATEGIES on SWEEP_TASKS at other offline-policy settings (VARIANTS: skill,
#           failure rates), plus strategies of SWEEP_STRATEGIES missing from the main grid at the
#           defaults (refine-best = refine following its best candidate instead of its latest);
#   retime  the RETIME_TOP best candidates of every run of RETIME_VARIANTS evaluated again,
#           RETIME_REPEATS times, after the searches: how much of a run's "best" is the maximum
#           of noisy timings (winner's curse)?
# Every search is its own `kiln-cli run` with its own database, PARALLEL at a time. With PIN
# (default when taskset exists) each of the PARALLEL slots owns nproc/PARALLEL cores: a search,
# its compiler and its candidates' OpenMP threads (libgomp sizes its team from the affinity mask)
# stay on them instead of every candidate spreading threads over the whole machine.
# Finished jobs are kept: the same command run again continues where an earlier one stopped.
# No job starts that would end after DEADLINE seconds (RETIME_SECONDS of them are kept for the
# retime phase when it is asked for), so one command stays under a hard time limit.
# Tables: bench/strategy_study.py report OUT_DIR (printed at the end, and saved as tables.md).
# EXPORT_DIR: where to copy the small results at the end (OUT_DIR also holds the compile cache).
# ROUND_LIMIT is passed as the engine's round_limit (most requests per round, on every budget
# axis since 2026-11-30; before, count budgets handed greedy, mcts and two-phase their whole
# remainder as one round). Empty: the engine's default (8).
#
# BACKEND (cpu) is the backend every search and evaluation uses: cuda on a GPU machine, where
# the searches share the GPU through the verifier's per-device lock.
# usage: [KNOB=value ...] bench/strategy_study.sh KILN_CLI OUT_DIR
set -euo pipefail

cli=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
py="$here/strategy_study.py"

ncpu=$(nproc)
BUDGET=${BUDGET:-40}
SEEDS=${SEEDS:-5}
PARALLEL=${PARALLEL:-$((ncpu / 2 > 0 ? ncpu / 2 : 1))}
SANDBOXES=${SANDBOXES:-1}
TASKS=${TASKS:-matmul,layernorm,softmax,reduce_sum,transpose,vector_add}
STRATEGIES=${STRATEGIES:-best-of-n,refine,beam,greedy,mcts,evolve,two-phase}
PHASES=${PHASES:-main,policy,retime}
VARIANTS=${VARIANTS:-skill0.2:skill=0.2 skill0.8:skill=0.8 nofail:compile_error_rate=0,wrong_rate=0,gaming_rate=0}
SWEEP_STRATEGIES=${SWEEP_STRATEGIES:-best-of-n,refine}
SWEEP_TASKS=${SWEEP_TASKS:-matmul,layernorm,softmax}
SWEEP_SEEDS=${SWEEP_SEEDS:-$SEEDS}
RETIME_REPEATS=${RETIME_REPEATS:-3}
RETIME_TOP=${RETIME_TOP:-1}
RETIME_VARIANTS=${RETIME_VARIANTS:-base}
RETIME_PARALLEL=${RETIME_PARALLEL:-$((PARALLEL / 2 > 0 ? PARALLEL / 2 : 1))}
RETIME_SECONDS=${RETIME_SECONDS:-100}
DEADLINE=${DEADLINE:-480}
PIN=${PIN:-auto}
BACKEND=${BACKEND:-cpu} # kiln-cli --backend of every search and evaluation (cpu or cuda)
ROUND_LIMIT=${ROUND_LIMIT:-} # engine round_limit (empty: its default)
NICE=${NICE:-0}
KEEP_DB=${KEEP_DB:-0}
EXPORT_DIR=${EXPORT_DIR:-}
export KILN_CACHE_DIR=${KILN_CACHE_DIR:-$out/cache}

has_phase() { [[ ",$PHASES," == *",$1,"* ]]; }
t0=$SECONDS
search_deadline=$DEADLINE
if has_phase retime; then
    search_deadline=$((DEADLINE - RETIME_SECONDS))
fi

# Cores of each slot.
mapfile -t cpus < <(python3 -c 'import os; print("\n".join(map(str, sorted(os.sched_getaffinity(0)))))')
per_slot=$((${#cpus[@]} / PARALLEL))
pinning=0
if [[ $PIN != 0 ]] && command -v taskset > /dev/null && ((per_slot >= 1)); then
    pinning=1
elif [[ $PIN == 1 ]]; then
    echo "strategy_study: PIN=1 needs taskset and at least one core per slot" >&2
    exit 2
fi
slot_prefix() { # slot -> command prefix (taskset + nice)
    local slot=$1
    local -a prefix=(nice -n "$NICE")
    if ((pinning)); then
        local list=${cpus[slot * per_slot]}
        for ((c = 1; c < per_slot; ++c)); do list+=",${cpus[slot * per_slot + c]}"; done
        prefix=(taskset -c "$list" "${prefix[@]}")
    fi
    echo "${prefix[@]}"
}

# Strategy parameters sized to the budget (structured_search.sh's choices, extended to every
# strategy): structured search gets several rounds of feedback within the budget.
strategy_base() {
    case $1 in
    refine-best | chain) echo refine ;;
    *) echo "$1" ;;
    esac
}
strategy_params() {
    local b=$BUDGET
    local eighth=$((b / 8 > 2 ? b / 8 : 2)) fifth=$((b / 5 > 2 ? b / 5 : 2))
    local population=$((b * 3 / 20 > 3 ? b * 3 / 20 : 3))
    case $1 in
    best-of-n) echo "n=0" ;;
    refine) echo "width=3 turns=$(((b + 2) / 3))" ;;
    refine-best) echo "width=3 turns=$(((b + 2) / 3)) follow=best" ;;
    chain) echo "width=1 turns=$b" ;; # one sample and its refinements (calibration)
    beam) echo "beams=3 children=3" ;;
    greedy) echo "initial=$eighth max_children=3" ;;
    mcts) echo "root_children=$eighth max_children=3" ;;
    evolve) echo "islands=2 population=$population" ;;
    two-phase) echo "drafts=$fifth max_children=3" ;;
    *)
        echo "strategy_study: no parameters for strategy '$1'" >&2
        return 1
        ;;
    esac
}
declare -A variant_params=([base]="")
variant_names=()
for spec in $VARIANTS; do
    name=${spec%%:*}
    params=${spec#*:}
    [[ $spec == *:* ]] || params=""
    variant_params[$name]=${params//,/ }
    variant_names+=("$name")
done

{
    echo "== $(date -u '+%F %T') $0 $*"
    for knob in BUDGET SEEDS PARALLEL SANDBOXES TASKS STRATEGIES PHASES VARIANTS SWEEP_STRATEGIES \
        SWEEP_TASKS SWEEP_SEEDS RETIME_REPEATS RETIME_TOP RETIME_VARIANTS RETIME_PARALLEL \
        RETIME_SECONDS DEADLINE PIN ROUND_LIMIT NICE BACKEND KILN_CACHE_DIR; do
        echo "$knob=${!knob}"
    done
    echo "cpus: ${cpus[*]}"
    "$cli" --version 2>&1 || true
    lscpu 2>/dev/null | grep -E '^(Model name|Thread|Core|Socket|NUMA node\(s\)|CPU\(s\))' || true
} >> "$out/settings.txt"

qdir="$out/.queue"
rm -rf "$qdir"
mkdir -p "$qdir"
: > "$qdir/search"
csv_words() { echo "${1//,/ }"; }
# Seed-major, main grid first within a seed: a study cut short by DEADLINE holds every cell
# with the same number of seeds, and the next command adds the next seeds.
last_seed=$SEEDS
if has_phase policy && ((SWEEP_SEEDS > last_seed)); then last_seed=$SWEEP_SEEDS; fi
for ((seed = 1; seed <= last_seed; ++seed)); do
    if has_phase main && ((seed <= SEEDS)); then
        for task in $(csv_words "$TASKS"); do
            for strategy in $(csv_words "$STRATEGIES"); do
                echo "base $task $strategy $seed" >> "$qdir/search"
            done
        done
    fi
    if has_phase policy && ((seed <= SWEEP_SEEDS)); then
        for task in $(csv_words "$SWEEP_TASKS"); do
            for strategy in $(csv_words "$SWEEP_STRATEGIES"); do
                echo "base $task $strategy $seed" >> "$qdir/search"
            done
            for variant in "${variant_names[@]}"; do
                for strategy in $(csv_words "$SWEEP_STRATEGIES"); do
                    echo "$variant $task $strategy $seed" >> "$qdir/search"
                done
            done
        done
    fi
done
# Leave out what an earlier command finished; refuse unknown strategies before starting.
awk '!seen[$0]++' "$qdir/search" | while read -r variant task strategy seed; do
    strategy_params "$strategy" > /dev/null || exit 2
    [[ -s "$out/runs/$variant/$task/$strategy/seed$seed.json" ]] ||
        echo "$variant $task $strategy $seed"
done > "$qdir/search.todo"
pending=$(wc -l < "$qdir/search.todo")

echo "strategy_study: $pending searches to run ($((pending * BUDGET)) evaluations), $PARALLEL at a" \
    "time, $SANDBOXES sandbox(es) each, $( ((pinning)) && echo "$per_slot core(s) per slot" ||
        echo unpinned); search deadline ${search_deadline}s, total ${DEADLINE}s" >&2

# A tiny sequential search first: checks the CLI and lets the verifier measure the machine's
# memory bandwidth (cached in KILN_CACHE_DIR) before anything else runs.
if ((pending > 0)) && [[ ! -s "$out/warmup.json" ]]; then
    rm -f "$out/warmup.db"
    # shellcheck disable=SC2046
    $(slot_prefix 0) "$cli" run --task vector_add --strategy best-of-n --budget 2 --seed 1 \
        --backend "$BACKEND" --db "$out/warmup.db" --param sandboxes=1 --json > "$out/warmup.json" \
        2> "$out/warmup.log" || {
        echo "strategy_study: warm-up search failed:" >&2
        tail -5 "$out/warmup.log" >&2
        rm -f "$out/warmup.json"
        exit 1
    }
    rm -f "$out/warmup.db"
fi

# Work queue: workers claim the next line under a lock (mkdir is atomic), so slots stay busy
# and each slot keeps its cores.
claim() {
    until mkdir "$qdir/lock" 2> /dev/null; do sleep 0.02; done
    local i
    i=$(< "$qdir/next")
    echo $((i + 1)) > "$qdir/next"
    rmdir "$qdir/lock"
    echo "$i"
}
# Longest duration of a finished unit so far (first guess: $2 seconds).
longest() {
    local guess=$2
    if [[ -s $1 ]]; then
        sort -n "$1" | tail -1
    else
        echo "$guess"
    fi
}

run_search() { # slot variant task strategy seed
    local slot=$1 variant=$2 task=$3 strategy=$4 seed=$5
    local dir="$out/runs/$variant/$task/$strategy"
    local final="$dir/seed$seed.json" work="$dir/seed$seed.work"
    rm -rf "$work"
    mkdir -p "$work"
    local -a args=(run --task "$task" --strategy "$(strategy_base "$strategy")" --budget "$BUDGET"
        --seed "$seed" --backend "$BACKEND" --db "$work/run.db" --param "sandboxes=$SANDBOXES" --json)
    local p
    for p in $(strategy_params "$strategy") ${variant_params[$variant]}; do args+=(--param "$p"); done
    [[ -n $ROUND_LIMIT ]] && args+=(--param "round_limit=$ROUND_LIMIT")
    local start=$SECONDS
    # shellcheck disable=SC2046
    if ! $(slot_prefix "$slot") "$cli" "${args[@]}" > "$work/run.json" 2> "$work/run.log"; then
        echo "strategy_study: FAILED $variant $task $strategy seed $seed (log: $work.failed)" >&2
        tail -3 "$work/run.log" >&2
        rm -rf "$work.failed"
        mv "$work" "$work.failed"
        return 0
    fi
    local run_id seconds=$((SECONDS - start))
    if ! run_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' \
        "$work/run.json") ||
        ! "$cli" report --db "$work/run.db" --run "$run_id" --json > "$work/report.json" ||
        ! "$cli" export --db "$work/run.db" --run "$run_id" --format json \
            --out "$work/export.json" ||
        ! python3 "$py" compact "$work" --out "$final.tmp" --variant "$variant" --task "$task" \
            --strategy "$strategy" --seed "$seed" --budget "$BUDGET" --wall "$seconds" \
            --top "$RETIME_TOP" --params "$(strategy_params "$strategy") ${variant_params[$variant]}" \
            --cores "$( ((pinning)) && echo "$per_slot" || echo 0)" --sandboxes "$SANDBOXES" \
            > "$qdir/summary.$slot"; then
        echo "strategy_study: FAILED to summarise $variant $task $strategy seed $seed ($work.failed)" >&2
        rm -rf "$work.failed"
        mv "$work" "$work.failed"
        return 0
    fi
    mv "$final.tmp" "$final"
    if [[ $KEEP_DB == 1 ]]; then mv "$work/run.db" "$dir/seed$seed.db"; fi
    rm -rf "$work"
    echo "$seconds" >> "$qdir/search.seconds"
}

search_worker() { # slot
    local slot=$1 n i line guess=$((BUDGET * 2))
    n=$(wc -l < "$qdir/search.todo")
    while :; do
        local elapsed=$((SECONDS - t0))
        if ((elapsed + $(longest "$qdir/search.seconds" "$guess") > search_deadline)); then
            break
        fi
        i=$(claim)
        ((i < n)) || break
        line=$(sed -n "$((i + 1))p" "$qdir/search.todo")
        # shellcheck disable=SC2086
        run_search "$slot" $line
        echo "[$(wc -l < "$qdir/search.seconds")/$n, $((SECONDS - t0))s] $line:" \
            "$(cat "$qdir/summary.$slot" 2> /dev/null)" >&2
        rm -f "$qdir/summary.$slot"
    done
}

if ((pending > 0)); then
    echo 0 > "$qdir/next"
    : > "$qdir/search.seconds"
    search_start=$SECONDS
    for ((slot = 0; slot < PARALLEL; ++slot)); do search_worker "$slot" & done
    wait
    done_now=$(wc -l < "$qdir/search.seconds")
    took=$((SECONDS - search_start))
    echo "strategy_study: $done_now of $pending searches in ${took}s" \
        "($(python3 -c "print(f'{$done_now * $BUDGET / max($took, 1):.1f}')") evaluations/s)" >&2
fi

# Re-timing: each distinct best source (per task) evaluated RETIME_REPEATS times with one
# sandbox, after every search has ended, on RETIME_PARALLEL slots (every other slot's cores, so
# half the machine stays idle; RETIME_PARALLEL=1 for a quiet machine).
retime_unit() { # slot task sha
    local slot=$1 task=$2 sha=$3 r
    local base="$out/retime/$task/$sha"
    for ((r = 1; r <= RETIME_REPEATS; ++r)); do
        [[ -s "$base.r$r.json" ]] && continue
        # shellcheck disable=SC2046
        $(slot_prefix "$slot") "$cli" eval --task "$task" --backend "$BACKEND" --seed "$r" --json \
            "$base.cpp" > "$base.r$r.tmp" 2> /dev/null || true
        if [[ -s "$base.r$r.tmp" ]]; then mv "$base.r$r.tmp" "$base.r$r.json"; else rm -f "$base.r$r.tmp"; fi
    done
}
retime_worker() { # worker
    local slot=$(($1 * 2 < PARALLEL ? $1 * 2 : $1 % PARALLEL)) n i line
    n=$(wc -l < "$qdir/retime.todo")
    while :; do
        local start=$SECONDS
        if (($(longest "$qdir/retime.seconds" 10) + start - t0 > DEADLINE)); then break; fi
        i=$(claim)
        ((i < n)) || break
        line=$(sed -n "$((i + 1))p" "$qdir/retime.todo")
        # shellcheck disable=SC2086
        retime_unit "$slot" $line
        echo $((SECONDS - start)) >> "$qdir/retime.seconds"
    done
}
if has_phase retime; then
    python3 "$py" retime-plan "$out" --variants "$RETIME_VARIANTS" --repeats "$RETIME_REPEATS" \
        > "$qdir/retime.todo"
    units=$(wc -l < "$qdir/retime.todo")
    if ((units > 0)); then
        echo "strategy_study: re-timing $units sources x $RETIME_REPEATS on $RETIME_PARALLEL" \
            "slot(s)" >&2
        echo 0 > "$qdir/next"
        : > "$qdir/retime.seconds"
        retime_start=$SECONDS
        for ((w = 0; w < RETIME_PARALLEL; ++w)); do retime_worker "$w" & done
        wait
        echo "strategy_study: re-timed $(wc -l < "$qdir/retime.seconds") of $units sources in" \
            "$((SECONDS - retime_start))s" >&2
    fi
fi

python3 "$py" report "$out" | tee "$out/tables.md"
left=$(
    python3 "$py" retime-plan "$out" --variants "$RETIME_VARIANTS" --repeats "$RETIME_REPEATS" \
        --count
)
missing=0
while read -r variant task strategy seed; do
    [[ -s "$out/runs/$variant/$task/$strategy/seed$seed.json" ]] || missing=$((missing + 1))
done < "$qdir/search.todo"
if [[ -n $EXPORT_DIR ]]; then
    mkdir -p "$EXPORT_DIR"
    for item in tables.md settings.txt runs results retime; do
        [[ -e "$out/$item" ]] && cp -r "$out/$item" "$EXPORT_DIR/"
    done
fi
if ((missing > 0)) || { has_phase retime && ((left > 0)); }; then
    echo "strategy_study: INCOMPLETE ($missing searches, $left sources to re-time):" \
        "run the same command again to continue" >&2
else
    echo "strategy_study: complete in $((SECONDS - t0))s" >&2
fi
