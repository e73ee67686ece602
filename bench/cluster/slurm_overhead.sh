#!/bin/bash
# The cost of --executor slurm next to the local executor, side by side in one script: the same
# runs (task, budget, seeds) once with this machine's sandboxes and once through worker jobs on
# a single-node Slurm on this host (scripts/slurm-testbed.sh; needs root, slurm-wlm and munge).
# The two take turns, seed by seed, so both see the same machine, and both start with an empty
# compile cache.
#   bench/cluster/slurm_overhead.sh BUILD_DIR [TASK] [EVALS] [SEEDS]
# Prints evaluations/s for each, the added wall time per evaluation, and, from the Slurm runs'
# "cluster" stages, where the added time goes: the spool and queue round trip around each
# evaluation (round_trip_ms - worker_ms) and the verifier's own time on the node (worker_ms).
set -euo pipefail

build=$(realpath "${1:?usage: $0 BUILD_DIR [TASK] [EVALS] [SEEDS]}")
task=${2:-vector_add}
evals=${3:-16}
seeds=${4:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
cli=$build/bin/kiln-cli
work=$(mktemp -d)
trap '"$here/scripts/slurm-testbed.sh" stop "$work/cluster"; rm -rf "$work"' EXIT

"$here/scripts/slurm-testbed.sh" start "$work/cluster" >/dev/null
export SLURM_CONF=$work/cluster/slurm.conf
jobs=$(nproc)

seconds() { # command... -> wall seconds on stdout, the command's output to the log
    local start end
    start=$(date +%s.%N)
    "$@" >>"$work/log" 2>&1
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

local_total=0
slurm_total=0
for seed in $(seq 1 "$seeds"); do
    common=(run --task "$task" --budget "$evals" --seed "$seed" --verifier-seed 1)
    # A fresh compile cache for each local run, as each Slurm session's cache/ starts empty.
    t=$(seconds env KILN_CACHE_DIR="$work/cache-$seed" "$cli" "${common[@]}" \
        --db "$work/local-$seed.db" --param sandboxes="$jobs")
    local_total=$(echo "$local_total + $t" | bc -l)
    t=$(seconds "$cli" "${common[@]}" --db "$work/slurm-$seed.db" --executor slurm \
        --slurm-partition kiln --slurm-max-jobs "$jobs" --slurm-cpus 1)
    slurm_total=$(echo "$slurm_total + $t" | bc -l)
done

n=$((evals * seeds))
printf 'task %s, %d evaluations per run, %d seeds, %d sandboxes / worker jobs, %s\n' \
    "$task" "$evals" "$seeds" "$jobs" "$(date -u +%F)"
printf 'local: %.2f s in all, %.2f evaluations/s\n' "$local_total" \
    "$(echo "$n / $local_total" | bc -l)"
printf 'slurm: %.2f s in all, %.2f evaluations/s\n' "$slurm_total" \
    "$(echo "$n / $slurm_total" | bc -l)"
printf 'ratio slurm/local wall: %.2f; added wall per evaluation: %.0f ms\n' \
    "$(echo "$slurm_total / $local_total" | bc -l)" \
    "$(echo "($slurm_total - $local_total) * 1000 / $n" | bc -l)"

stages() { # SQL over every Slurm run's cluster stages -> one value per line
    for db in "$work"/slurm-*.db; do
        sqlite3 "$db" "SELECT $1 FROM evaluations e, json_each(e.result_json, '\$.stages') s
                       WHERE json_extract(s.value, '\$.name') = 'cluster'"
    done
}
summary() { # label, values on stdin
    sort -n | awk -v label="$1" '{ v[NR] = $1 } END {
        printf "%s: median %.0f ms, 90th percentile %.0f ms, max %.0f ms (n=%d)\n", label,
               v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.5)], v[NR], NR }'
}
stages "json_extract(s.value, '\$.data.round_trip_ms') - json_extract(s.value, '\$.data.worker_ms')" |
    summary "posted to collected, less the evaluation (waiting for a worker or a job start, pickup, collection)"
stages "json_extract(s.value, '\$.data.worker_ms')" | summary "verifier on the node"
for db in "$work"/local-*.db; do
    sqlite3 "$db" "SELECT total_ms FROM evaluations"
done | summary "verifier, local"
grep -h "worker job(s)" "$work/log" | sort | uniq -c
