#!/usr/bin/env bash
# Inline-CUDA builds, load_inline against Kiln's split build, side by side in one run on the
# GPU machine (docs/performance.md, "Inline-CUDA builds, split").
#
#  1. Builds alone: tests/cuda/inline_builds.py builds each candidate both ways, cold, one at a
#     time, and runs both on the problem's inputs (outputs must be equal bit for bit).
#  2. Whole evaluations with a warm reference and cold builds, as a search makes them:
#     bench_kernelbench_evals (BUILD_DIR/bin), both ways alternating, REPEATS rounds.
#
# usage: bench/kernelbench/inline_build.sh OUT_DIR BUILD_DIR TASKS_DIR REPEATS CANDIDATE...
#   TASKS_DIR: KernelBench problems imported with `kiln-cli import-kernelbench`.
#   KILN_LIBRARY_PATH: libraries for the bench program alone (a bundled Qt), not for python3.
#   BUILD_DIR must hold the benchmarks (the release preset, or -DKILN_BUILD_BENCH=ON).
set -uo pipefail
out=$1 build=$2 tasks=$3 repeats=$4
shift 4
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
python3 "$here/tests/cuda/inline_builds.py" --worker-dir "$build/bin" --tasks-dir "$tasks" \
    --headers "$out/headers" "$@" > "$out/builds.json"
python3 - "$out/builds.json" <<'EOF'
import json, statistics, sys
report = json.load(open(sys.argv[1]))
print("headers made once:", report["headers"])
ratios = []
for row in report["candidates"]:
    t, k = row["torch"], row["kiln"]
    ways = ",".join(b["way"] for b in k.get("builds", []))
    if "seconds" in t and "seconds" in k:
        ratios.append(t["seconds"] / k["seconds"])
    print("%-32s load_inline %6s s  kiln %6s s (%s)  equal %s" % (
        row["candidate"], t.get("seconds", t.get("error")), k.get("seconds", k.get("error")),
        ways, row.get("equal")))
if ratios:
    print("build ratio load_inline/kiln: median %.1fx, min %.1fx, max %.1fx over %d" % (
        statistics.median(ratios), min(ratios), max(ratios), len(ratios)))
EOF

LD_LIBRARY_PATH=${KILN_LIBRARY_PATH:-${LD_LIBRARY_PATH:-}} \
    "$build/bin/bench_kernelbench_evals" --tasks "$tasks" --ways torch,kiln --repeats "$repeats" \
    "$@" | tee "$out/evals.jsonl" | grep -v '^{'
