#!/usr/bin/env bash
# How far apart separate judgements of one kernel land, for one or more builds side by side in
# one run: each kernel is judged REPEATS times by `kiln-cli eval --backend cuda`, builds
# alternating within each repeat so drift on the machine falls on both. Prints per build and
# kernel the candidate's median over the judgements, their coefficient of variation, the range
# of the speedup, the kept timed calls per judgement and the timing stage's wall time.
#
# usage: [REPEATS=6] [KERNELS="task:file ..."] bench/cuda/repeatability.sh OUT_DIR BUILD_DIR...
set -uo pipefail
out=$1
shift
mkdir -p "$out"
repeats=${REPEATS:-6}
data=$(cd "$(dirname "$0")/../../tests/data/candidates/cuda" && pwd)
kernels=${KERNELS:-"vector_add:vector_add_device_only.cu softmax:softmax_device_only.cu
transpose:transpose_device_only.cu matmul:matmul_tiled.cu"}
for r in $(seq 1 "$repeats"); do
    for kernel in $kernels; do
        IFS=: read -r task file <<<"$kernel"
        for dir in "$@"; do
            db=$out/repeat-$(basename "$dir").db
            KILN_CACHE_DIR="$out/cache-$(basename "$dir")" timeout 120 "$dir/kiln-cli" eval \
                --task "$task" --backend cuda --seed "$r" --db "$db" --json "$data/$file" \
                >/dev/null 2>>"$out/repeat-$(basename "$dir").err" ||
                echo "repeatability: $(basename "$dir") $task repeat $r ended with an error" >&2
        done
    done
done
python3 - "$out" "$@" <<'PY'
import json, os, sqlite3, statistics, sys
out, dirs = sys.argv[1], sys.argv[2:]
print("| build | kernel | judgements | candidate median | CV | speedup range | kept calls | timing stage |")
print("|---|---|---|---|---|---|---|---|")
for d in dirs:
    name = os.path.basename(d)
    path = f"{out}/repeat-{name}.db"
    if not os.path.exists(path):
        print(f"| {name} | no database | | | | | | |")
        continue
    db = sqlite3.connect(path)
    rows = db.execute("""SELECT c.task, e.verdict, e.candidate_ms, e.speedup, s.ms, s.data_json
        FROM evaluations e JOIN candidates c ON c.id = e.candidate_id
        LEFT JOIN stages s ON s.evaluation_id = e.id AND s.name = 'timing' ORDER BY e.id""")
    by = {}
    for task, verdict, ms, speedup, stage_ms, data in rows:
        by.setdefault(task, []).append((verdict, ms, speedup, stage_ms, json.loads(data or "{}")))
    for task, runs in by.items():
        timed = [r for r in runs if r[1]]
        verdicts = ",".join(sorted({r[0] for r in runs}))
        if len(timed) < 2:
            print(f"| {name} | {task} | {len(runs)} ({verdicts}) | | | | | |")
            continue
        ms = [r[1] for r in timed]
        cv = statistics.stdev(ms) / statistics.mean(ms) * 100
        sp = [r[2] for r in timed]
        kept = sorted({r[4].get("candidate", {}).get("n", 0) for r in timed})
        stage = statistics.median([r[3] for r in timed if r[3]])
        print(f"| {name} | {task} | {len(runs)} ({verdicts}) | {statistics.median(ms):.4f} ms | "
              f"{cv:.2f} % | {min(sp):.3f}-{max(sp):.3f}x | {kept[0]}-{kept[-1]} | {stage:.0f} ms |")
PY
