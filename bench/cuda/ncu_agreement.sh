#!/usr/bin/env bash
# Agreement of the CUDA verifier's event timings with Nsight Compute's gpu__time_duration on the
# same kernels (docs/performance.md, "CUDA verifier"). For each candidate: one plain
# `kiln-cli eval` (the verifier's median), then the same evaluation under ncu (L2 flushed before
# each kernel, clocks left alone, as the verifier runs them); the ncu median is taken over the
# candidate's launches at the timing shape (the largest grid).
#
# usage: bench/cuda/ncu_agreement.sh BIN_DIR OUT_DIR [CANDIDATE.cu ...]
# KILN_PROFILE_SANDBOX=1 makes the GPU sandbox skip its isolation so the profiler can attach:
# only ever for trusted kernels like these.
#
# The engine starts its GPU sandbox through a wrapper that runs it under ncu (KILN_CUDA_SANDBOX),
# so ncu sees one process and none of the engine's others. (ncu --target-processes all around
# kiln-cli never finished on the H200.)
set -euo pipefail
bin=$(cd "$1" && pwd)
out=$2
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
candidates=("$@")
if [ ${#candidates[@]} -eq 0 ]; then
    for name in vector_add_naive softmax_online matmul_tiled transpose_tiled layernorm_welford; do
        candidates+=("$here/tests/data/candidates/cuda/$name.cu")
    done
fi
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
"$ncu" --version | tail -1 >&2
# Only the candidate's kernels are profiled (-k), at most NCU_LAUNCHES of them: the reference's
# and the harness's launches run unprofiled.
ncuOptions=(--clock-control none --cache-control all -k 'regex:_cand'
    --launch-count "${NCU_LAUNCHES:-80}"
    --metrics gpu__time_duration.sum,launch__grid_size --csv --print-units base)
first=1
for file in "${candidates[@]}"; do
    name=$(basename "$file" .cu)
    task=$(head -1 "$file" | sed -n 's/.*task=\([a-z_]*\).*/\1/p')
    # Kernel names of their own, so the reference's launches never count as the candidate's.
    sed -E 's/\b([a-z_0-9]+_kernel)\b/\1_cand/g' "$file" > "$out/$name.cu"
    file=$out/$name.cu
    timeout 120 "$bin/kiln-cli" eval --task "$task" --backend cuda --seed 7 --json "$file" \
        > "$out/plain-$name.json" || echo "plain eval of $name: exit $?" >&2
    csv=$out/ncu-$name.csv
    wrapper=$out/ncu-sandbox-$name.sh
    {
        echo '#!/bin/bash'
        echo "case \" \$* \" in *' --probe '* | *' --compile-only '*) exec $bin/kiln-cuda-sandbox \"\$@\" ;; esac"
        printf 'exec %q' "$ncu"
        printf ' %q' "${ncuOptions[@]}" --log-file "$csv"
        printf ' %q "$@"\n' "$bin/kiln-cuda-sandbox"
    } > "$wrapper"
    chmod +x "$wrapper"
    KILN_PROFILE_SANDBOX=1 KILN_CUDA_SANDBOX=$wrapper timeout "${NCU_SECONDS:-80}" \
        "$bin/kiln-cli" eval --task "$task" --backend cuda --seed 7 --json "$file" \
        > "$out/ncu-eval-$name.json" 2> "$out/ncu-$name.log" ||
        echo "ncu on $name: exit $?" >&2
    if ! grep -q gpu__time_duration "$csv" 2>/dev/null; then
        echo "ncu on $name: no measurements" >&2
        tail -n 5 "$csv" "$out/ncu-$name.log" >&2 || true
        head -c 600 "$out/ncu-eval-$name.json" >&2 || true
        # The first one failing means the set-up is wrong: do not spend the rest on it.
        [ $first = 0 ] || break
    fi
    first=0
    echo "done $name" >&2
done
python3 - "$out" <<'PY'
import csv, io, json, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
rows = []
for plain in sorted(out.glob("plain-*.json")):
    name = plain.stem[len("plain-"):]
    try:
        doc = json.loads(plain.read_text())
    except ValueError:
        print(f"{name}: no verifier document", file=sys.stderr)
        continue
    stages = {s["name"]: s for s in doc.get("stages", [])}
    kernels = [k["name"].split("(")[0] for k in stages["compile"]["data"].get("kernels", [])]
    if "timing" not in stages:
        print(f"{name}: not timed ({doc.get('verdict')}: {doc.get('summary', '')[:120]})", file=sys.stderr)
        continue
    ours = stages["timing"]["data"]["candidate"]["median"]
    path = out / f"ncu-{name}.csv"
    text = path.read_text() if path.exists() else ""
    lines = text[text.find('"ID"'):] if '"ID"' in text else ""
    durations = {}  # launch id -> (kernel, grid, ns)
    for r in csv.DictReader(io.StringIO(lines)):
        kernel = r["Kernel Name"].split("(")[0]
        if kernel not in kernels:
            continue
        entry = durations.setdefault(r["ID"], {"kernel": kernel})
        value = float(r["Metric Value"].replace(",", ""))
        if r["Metric Name"] == "gpu__time_duration.sum":
            entry["ns"] = value
        elif r["Metric Name"] == "launch__grid_size":
            entry["grid"] = value
    launches = [d for d in durations.values() if "ns" in d and "grid" in d]
    if not launches:
        rows.append((name, ours, None, None, 0))
        continue
    # Timing-shape launches: the largest grid. Several kernels per call add up per call;
    # here every candidate launches one kernel per call at the timing shape.
    biggest = max(d["grid"] for d in launches)
    timed = [d["ns"] / 1e6 for d in launches if d["grid"] == biggest]
    theirs = statistics.median(timed)
    rows.append((name, ours, theirs, (ours - theirs) / theirs * 100, len(timed)))
print("| candidate | verifier median (ms) | ncu gpu__time_duration median (ms) | difference | ncu launches |")
print("|---|---|---|---|---|")
for name, ours, theirs, diff, n in rows:
    if theirs is None:
        print(f"| {name} | {ours:.4f} | (no ncu rows) | | 0 |")
    else:
        print(f"| {name} | {ours:.4f} | {theirs:.4f} | {diff:+.1f} % | {n} |")
PY
