#!/usr/bin/env bash
# Measures the offline policy's per-step figures through kiln-cli and the verifier (BACKEND: cpu
# by default, cuda on a GPU machine), for the frontier preset (the default, variant "base") and
# the weak one: per task and seed a best-of-n run of 5 samples (pass@1, pass@5) and a chain of
# one sample and four refinement turns (correctness after the turns, fix and speed-up rates per
# turn). Tables: calibration.py OUT.
#   [SEEDS=10] [PARALLEL=...] [BACKEND=cpu|cuda] bench/offline/calibration.sh KILN_CLI OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BACKEND=${BACKEND:-cpu} BUDGET=5 PHASES=policy SWEEP_STRATEGIES=best-of-n,chain \
    SWEEP_TASKS=${TASKS:-vector_add,reduce_sum,softmax,layernorm,matmul,transpose} \
    SWEEP_SEEDS=${SEEDS:-10} SEEDS=${SEEDS:-10} VARIANTS="weak:preset=weak" ROUND_LIMIT=1 \
    DEADLINE=${DEADLINE:-540} "$here/../strategy_study.sh" "$1" "$2" > /dev/null ||
    echo "calibration: strategy_study.sh ended with an error; tables from what finished" >&2
python3 "$here/calibration.py" "$2" | tee "$2/calibration.md"
