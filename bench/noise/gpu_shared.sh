#!/usr/bin/env bash
# Honest CUDA kernels judged by several kiln-cli processes sharing one GPU, for two builds side
# by side (issue "Speedups you can trust", docs/performance.md "Measurement noise"). The set is
# every CUDA candidate of tests/data/candidates/cuda whose expectation is a pass, and each core
# task's own reference submitted as the candidate (an A/A test: 1.00x is the truth). Each build:
#   alone:  one process judges the set once;
#   shared: PROCS processes judge the whole set at once (each in its own order), while one more
#           process judges the side-stream cheat (game_null_stream_variable.cu) REPEATS times.
# A false flag is an honest kernel that does not pass; the cheat must be flagged every time.
#
# usage: bench/noise/gpu_shared.sh OUT_DIR BEFORE_BIN_DIR AFTER_BIN_DIR [PROCS] [REPEATS]
#   BUILDS (env): which of "before after" to run (default both, in that order); SKIP_ALONE=1
#   leaves out the alone pass.
# Prints a summary per build and mode; every judgement is a line of OUT_DIR/judgements.tsv.
set -uo pipefail
out=$1
before=$2
after=$3
procs=${4:-4}
repeats=${5:-3}
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
honest=()
for f in "$repo"/tests/data/candidates/cuda/*.cu; do
    head -1 "$f" | grep -q 'verdict=pass' || continue
    case $(basename "$f") in game_* | hostile_* | probe_*) continue ;; esac
    honest+=("$(head -1 "$f" | sed -n 's/.*task=\([a-z_]*\).*/\1/p'):$f")
done
for t in vector_add reduce_sum softmax layernorm matmul transpose; do
    honest+=("$t:$repo/tasks/$t/reference.cu")
done
cheat="vector_add:$repo/tests/data/candidates/cuda/game_null_stream_variable.cu"
table=$out/judgements.tsv
printf 'build\tmode\tprocess\tfile\tverdict\tflags\tspeedup\tlow\thigh\n' > "$table"

# judge BUILD MODE PROCESS TASK:FILE...: one kiln-cli eval per kernel, a line each.
judge() {
    local build=$1 mode=$2 process=$3 bin
    shift 3
    bin=$([ "$build" = before ] && echo "$before" || echo "$after")
    for entry in "$@"; do
        local task=${entry%%:*} file=${entry#*:}
        KILN_CACHE_DIR=$out/cache-$build "$bin/kiln-cli" eval --backend cuda --task "$task" \
            --json "$file" 2>/dev/null | python3 -c '
import json, sys
build, mode, process, name = sys.argv[1:5]
try:
    d = json.load(sys.stdin)
except Exception:
    d = {"verdict": "no_answer", "flags": []}
i = d.get("speedup_interval") or {}
flags = ",".join(f["id"] for f in d.get("flags", [])) or "-"
print("\t".join([build, mode, process, name, d.get("verdict", "?"), flags,
                 str(d.get("speedup")), str(i.get("low")), str(i.get("high"))]))
' "$build" "$mode" "$process" "$(basename "$file")" >> "$table"
    done
}

for build in ${BUILDS:-before after}; do
    # One compile of every kernel first, so the shared runs time rather than build.
    judge "$build" warm 0 "${honest[@]}" "$cheat"
    [ -n "${SKIP_ALONE:-}" ] || judge "$build" alone 0 "${honest[@]}"
    pids=()
    for p in $(seq 1 "$procs"); do
        mapfile -t order < <(printf '%s\n' "${honest[@]}" | shuf --random-source=<(yes "$p"))
        judge "$build" shared "$p" "${order[@]}" &
        pids+=($!)
    done
    cheats=()
    for r in $(seq 1 "$repeats"); do cheats+=("$cheat"); done
    judge "$build" shared cheat "${cheats[@]}" &
    pids+=($!)
    wait "${pids[@]}"
done

python3 - "$table" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
for build in ("before", "after"):
    for mode in ("alone", "shared"):
        honest = [r for r in rows if r["build"] == build and r["mode"] == mode and r["process"] != "cheat"]
        cheat = [r for r in rows if r["build"] == build and r["mode"] == mode and r["process"] == "cheat"]
        if not honest:
            continue
        false = [r for r in honest if r["verdict"] != "pass"]
        aa = [float(r["speedup"]) for r in honest if r["file"] == "reference.cu" and r["speedup"] not in ("None", "")]
        disturbed = sum(1 for r in honest if "timing_disturbed" in r["flags"])
        line = (f"{build:6} {mode:6} honest {len(honest) - len(false)}/{len(honest)} pass"
                f" (false flags: {', '.join(r['file'] + ':' + r['flags'] for r in false) or 'none'});"
                f" timing_disturbed {disturbed}")
        if aa:
            line += f"; A/A {min(aa):.3f}-{max(aa):.3f}"
        if cheat:
            flagged = sum(1 for r in cheat if "side_stream_work" in r["flags"])
            line += f"; side-stream cheat flagged {flagged}/{len(cheat)}"
        print(line)
PY
