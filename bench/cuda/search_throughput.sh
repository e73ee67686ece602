#!/usr/bin/env bash
# Evaluations per second of an offline search on the CUDA backend, for one or more builds side
# by side in one run: each build runs the same search over the six core tasks (one budget shared
# by the suite), alternating builds between repeats so that drift on the machine falls on both.
#
# usage: bench/cuda/search_throughput.sh OUT_DIR BUILD_DIR[:BUDGET[:NAME=VALUE]] [...]
#   BUDGET defaults to SEARCH_BUDGET (200); SEARCH_REPEATS (1), SEARCH_STRATEGY (best-of-n),
#   SEARCH_SEED (7), SEARCH_ARGS (more kiln-cli run options, e.g. "--param round_limit=32").
#   A build may be named twice with different budgets, or with an environment setting of its
#   own (e.g. build/release:500:KILN_CUDA_LAUNCHER=0 beside build/release:500, the single-use
#   processes of the old path beside the trusted launcher, in one binary).
# Prints one line per search: build, wall seconds, evaluations, evaluations/s, verdict counts.
set -uo pipefail
out=$1
shift
mkdir -p "$out"
budget=${SEARCH_BUDGET:-200}
repeats=${SEARCH_REPEATS:-1}
strategy=${SEARCH_STRATEGY:-best-of-n}
seed=${SEARCH_SEED:-7}
suite=vector_add,reduce_sum,softmax,layernorm,transpose,matmul
for r in $(seq 1 "$repeats"); do
    for spec in "$@"; do
        IFS=: read -r dir evals setting <<<"$spec"
        evals=${evals:-$budget}
        name=$(basename "$dir")-$evals${setting:+-${setting//[^A-Za-z0-9]/_}}
        db=$out/search-$name-$r.db
        rm -f "$db"
        # A cache of its own per build and repeat: every candidate is compiled in the search.
        cache=$out/cache-$name-$r
        start=$(date +%s.%N)
        env ${setting:+"$setting"} KILN_CACHE_DIR="$cache" timeout 900 "$dir/kiln-cli" run --suite "$suite" --backend cuda \
            --strategy "$strategy" --budget "$evals" --seed "$seed" --db "$db" --json ${SEARCH_ARGS:-} \
            >"$out/search-$name-$r.json" 2>"$out/search-$name-$r.err"
        end=$(date +%s.%N)
        python3 - "$out/search-$name-$r.json" "$name" "$start" "$end" <<'PY'
import json, sys
path, name, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
try:
    d = json.load(open(path))
except Exception as e:
    print(f"{name}: no document ({e})")
    sys.exit(0)
wall = end - start
evals = d.get("budget_used", {}).get("evals", d.get("candidates", 0))
verdicts = " ".join(f"{k}={v}" for k, v in sorted(d.get("verdicts", {}).items()) if v)
print(f"{name}: {wall:.1f} s, {evals} evaluations, {evals / wall:.2f}/s; {verdicts}; "
      f"best {d.get('best', {}).get('speedup')}")
PY
    done
done
