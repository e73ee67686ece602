#!/usr/bin/env bash
# CPU verifier throughput of two builds side by side, for every task (docs/performance.md,
# "Verifier 3"): bench_verifier of the old and the new build, alternating per task, each with a
# compile cache of its own, on the task's plain candidate (tests/data/candidates/cpu/*_naive.cpp).
# usage: bench/verifier/compare_builds.sh OLD_BIN_DIR NEW_BIN_DIR [EVALS] [OUT_DIR]
#   (each BIN_DIR holds bench_verifier and kiln-sandbox of a release build)
set -euo pipefail
old=${1:?usage: $0 OLD_BIN_DIR NEW_BIN_DIR [EVALS] [OUT_DIR]}
new=${2:?usage: $0 OLD_BIN_DIR NEW_BIN_DIR [EVALS] [OUT_DIR]}
evals=${3:-10}
out=${4:-$(mktemp -d)}
tasks="vector_add reduce_sum softmax layernorm transpose matmul"
for task in $tasks; do
    for build in old new; do
        dir=$old
        [ "$build" = new ] && dir=$new
        echo "$task ($build) ..." >&2
        "$dir/bench_verifier" --evals "$evals" --task "$task" >"$out/$task-$build.json" 2>/dev/null
    done
done
python3 - "$out" $tasks <<'PY'
import json, sys
out, tasks = sys.argv[1], sys.argv[2:]
def row(name, get):
    cells = []
    for t in tasks:
        o = json.load(open(f"{out}/{t}-old.json"))
        n = json.load(open(f"{out}/{t}-new.json"))
        a, b = get(o), get(n)
        if isinstance(a, str):
            cells.append(f"{a} → {b}")
        else:
            cells.append(f"{a:.2f} → {b:.2f} ({b / a:.2f}×)" if a else f"{a} → {b:.2f}")
    print(f"| {name} | " + " | ".join(cells) + " |")
print("| figure (old → new) | " + " | ".join(tasks) + " |")
print("|---|" + "---|" * len(tasks))
row("verdict of the plain candidate", lambda j: j["cold_verdict"])
row("warm evaluation, ms", lambda j: j["warm_eval_ms_median"])
row("overhead beyond compile and timed calls, ms", lambda j: j["overhead_ms_median"])
for s in (1, 2):
    row(f"evaluations/s with timing, {s} sandbox{'es' if s > 1 else ''}",
        lambda j, s=s: j["evals_per_second_with_timing"][f"sandboxes_{s}"])
for s in (1, 2):
    row(f"evaluations/s correctness only, {s} sandbox{'es' if s > 1 else ''}",
        lambda j, s=s: j["evals_per_second_correctness_only"][f"sandboxes_{s}"])
PY
echo "raw JSON in $out" >&2
