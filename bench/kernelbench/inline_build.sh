#!/usr/bin/env bash
# Inline-CUDA builds, load_inline against Kiln's split build, side by side in one run on the
# GPU machine (docs/performance.md, "Inline-CUDA builds, split").
#
#  1. Builds alone: tests/cuda/inline_builds.py builds each candidate both ways, cold, one at a
#     time, and runs both on the problem's inputs (outputs must be equal bit for bit).
#  2. Whole evaluations: `kiln-cli eval` of each candidate with --inline-build torch and kiln,
#     alternating, each on a copy of the source that no build has seen (a cold build), with
#     Kiln's headers already made (they are made once per machine; step 1 says how long).
#
# usage: bench/kernelbench/inline_build.sh OUT_DIR BUILD_DIR TASKS_DIR REPEATS CANDIDATE...
#   TASKS_DIR: KernelBench problems imported with `kiln-cli import-kernelbench`.
#   KILN_CLI: how to start kiln-cli (default BUILD_DIR/bin/kiln-cli).
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

export KILN_CACHE_DIR=$out/cache/compile
mkdir -p "$out/cache/torch-extensions" "$out/sources"
rm -rf "$out/cache/torch-extensions/kiln-inline-headers"
cp -r "$out/headers" "$out/cache/torch-extensions/kiln-inline-headers"
for r in $(seq 1 "$repeats"); do
    for candidate in "$@"; do
        task=$(head -1 "$candidate" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
        for way in torch kiln; do
            name=$(basename "$candidate" .py)-$way-$r
            # A source no build has seen: the extension folder is named by the source's hash.
            { cat "$candidate"; echo "# cold copy $name"; } > "$out/sources/$name.py"
            start=$(date +%s%N)
            ${KILN_CLI:-$build/bin/kiln-cli} eval --backend pytorch --task "$task" --tasks-dir "$tasks" \
                --inline-build "$way" --json "$out/sources/$name.py" > "$out/$name.json" \
                2> "$out/$name.err"
            echo "$name $(( ($(date +%s%N) - start) / 1000000 ))" >> "$out/walls.txt"
        done
    done
done
python3 - "$out" <<'EOF'
import json, statistics, sys, os
out = sys.argv[1]
rows = {}
for line in open(os.path.join(out, "walls.txt")):
    name, ms = line.split()
    d = json.load(open(os.path.join(out, name + ".json")))
    stages = {s["name"]: s for s in d.get("stages", [])}
    compile_ms = stages.get("compile", {}).get("ms")
    way = name.split("-")[-2]
    rows.setdefault(way, []).append((int(ms) / 1000, (compile_ms or 0) / 1000, d.get("verdict")))
    print("%-44s wall %6.1f s  compile %6.1f s  %s" % (name, int(ms) / 1000,
                                                        (compile_ms or 0) / 1000, d.get("verdict")))
for way, values in sorted(rows.items()):
    print("%s: whole evaluation p50 %.1f s, compile p50 %.1f s (n=%d)" % (
        way, statistics.median(v[0] for v in values), statistics.median(v[1] for v in values),
        len(values)))
if len(rows) == 2:
    print("compile ratio torch/kiln (p50): %.1fx" % (
        statistics.median(v[1] for v in rows["torch"]) /
        statistics.median(v[1] for v in rows["kiln"])))
EOF
