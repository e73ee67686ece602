#!/usr/bin/env bash
# Wall time of one offline suite search with its tasks' rounds one at a time and several at
# once (--param tasks_at_once), side by side: the settings alternate within each repeat, so drift
# on the machine falls on all of them, and each repeat gives a ratio to the first setting.
#
# usage: bench/suite/tasks_at_once.sh OUT_DIR BACKEND BUDGET REPEATS N [N...]
#   e.g. bench/suite/tasks_at_once.sh /tmp/tao cpu 48 5 1 3
#   KILN_CLI (build/ci/bin/kiln-cli), SUITE (the six core tasks), SEARCH_ARGS (more options).
# Prints one line per search, then each setting's median wall time and its ratio to the first
# setting's (median and range over the repeats).
set -uo pipefail
out=$1 backend=$2 budget=$3 repeats=$4
shift 4
cli=${KILN_CLI:-build/ci/bin/kiln-cli}
suite=${SUITE:-vector_add,reduce_sum,softmax,layernorm,transpose,matmul}
mkdir -p "$out"
: >"$out/walls.tsv"
for r in $(seq 1 "$repeats"); do
    for n in "$@"; do
        db=$out/suite-$n-$r.db
        rm -f "$db"
        # A compile cache of its own per search: every candidate is compiled in it.
        start=$(date +%s.%N)
        KILN_CACHE_DIR=$out/cache-$n-$r "$cli" run --suite "$suite" --backend "$backend" \
            --strategy best-of-n --budget "$budget" --seed 7 --param allocation=even \
            --param tasks_at_once="$n" --db "$db" --json ${SEARCH_ARGS:-} \
            >"$out/suite-$n-$r.json" 2>"$out/suite-$n-$r.err"
        end=$(date +%s.%N)
        python3 - "$out/suite-$n-$r.json" "$n" "$r" "$start" "$end" "$out/walls.tsv" <<'PY'
import json, sys
path, n, r, start, end, walls = sys.argv[1:7]
wall = float(end) - float(start)
try:
    d = json.load(open(path))
except Exception as e:
    print(f"tasks_at_once={n} repeat {r}: no document ({e})")
    sys.exit(0)
evals = d.get("budget_used", {}).get("evals", 0)
verdicts = " ".join(f"{k}={v}" for k, v in sorted(d.get("verdicts", {}).items()) if v)
print(f"tasks_at_once={n} repeat {r}: {wall:.1f} s, {evals} evaluations, {evals / wall:.2f}/s; {verdicts}")
open(walls, "a").write(f"{n}\t{r}\t{wall}\n")
PY
    done
done
python3 - "$out/walls.tsv" "$@" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
settings = sys.argv[2:]
wall = {(n, r): float(w) for n, r, w in rows}
repeats = sorted({r for _, r, _ in rows}, key=int)
first = settings[0]
for n in settings:
    mine = [wall[(n, r)] for r in repeats if (n, r) in wall]
    ratios = [wall[(n, r)] / wall[(first, r)] for r in repeats if (n, r) in wall and (first, r) in wall]
    if not mine:
        continue
    line = f"tasks_at_once={n}: median wall {statistics.median(mine):.1f} s (n={len(mine)})"
    if n != first and ratios:
        line += (f"; wall / tasks_at_once={first}: median {statistics.median(ratios):.2f}, "
                 f"range {min(ratios):.2f}-{max(ratios):.2f}")
    print(line)
PY
