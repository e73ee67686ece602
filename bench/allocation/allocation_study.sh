#!/bin/sh
# The suite allocators side by side at equal budget (docs/performance.md, "Suite allocation"):
# one run per seed and allocation over the six core tasks on the CPU backend, then the score of
# each run (allocation_table.py). Usage: allocation_study.sh OUT [SEEDS] [BUDGET]
set -eu
OUT=$1
SEEDS=${2:-"1 2 3 4 5"}
BUDGET=${3:-36}
CLI=${KILN_CLI:-build/ci/bin/kiln-cli}
SUITE=vector_add,reduce_sum,softmax,layernorm,matmul,transpose
mkdir -p "$OUT"
for seed in $SEEDS; do
    for mode in even adaptive diagnosed; do
        db=$OUT/$mode-$seed.db
        rm -f "$db"
        "$CLI" run --suite $SUITE --strategy best-of-n --budget "$BUDGET" --seed "$seed" \
            --backend cpu --param allocation=$mode --db "$db" > /dev/null
        "$CLI" export --db "$db" --run 1 --format csv --out "$OUT/$mode-$seed.csv"
    done
done
python3 "$(dirname "$0")/allocation_table.py" "$OUT"
