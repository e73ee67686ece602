#!/usr/bin/env bash
# What the CUDA backend's figures and GPU test results come from, in one command on the GPU
# machine (the `device` tool). Binaries are built on the development machine, copied (stripped)
# into .devrun/ and their Qt/curl/SQLite libraries packed by ../shared/tools/device-bundle.sh
# into .device/; carry both.
#
# usage: bench/cuda/run_device.sh OUT_DIR [STEPS]     STEPS: comma list, run in that order, of
#   smoke   probe, one candidate per compile path, a fault, then an honest one again
#   tests   tst_cudaparsing and tst_verifiercuda (every CUDA mechanism)
#   bench   bench_cuda_verifier (compile times, latency, evals/s, repeatability)
#   contexts  bench_context_rate (fresh CUDA contexts a second, 1-16 processes at once)
#   ncu     bench/cuda/ncu_agreement.sh (verifier vs Nsight Compute)
#   search  a short beam search on the CUDA backend with the offline policy
#   launcher  the offline best-of-n search over the six tasks (SEARCH_BUDGET, default 120) with
#           single-use processes (KILN_CUDA_LAUNCHER=0) and with the launcher, in one run, and
#           where its stages' time went (stage_summary.py)
#   before_after  the same candidates through an older build (KILN_DEVICE_OLD_BIN, its kiln-cli
#           and kiln-cuda-sandbox) and this one, alternating: verdict, speedup, timing stage
# Two GPUs, two lists at once: CUDA_VISIBLE_DEVICES=0 run_device.sh A tests &
#   CUDA_VISIBLE_DEVICES=1 run_device.sh B ncu,search; wait
set -uo pipefail
out=$1
steps=${2:-smoke,tests,bench,ncu,search}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${KILN_DEVICE_BIN:-$root/.devrun}
mkdir -p "$out" /tmp/rt
# Several copies may run at once, one per GPU (CUDA_VISIBLE_DEVICES): unpack once.
if mkdir /tmp/rt.lock 2>/dev/null; then
    tar xJf "$root/.device/runtime.tar.xz" -C /tmp/rt && touch /tmp/rt/.ready
fi
while [ ! -e /tmp/rt/.ready ]; do sleep 1; done
# The binaries were built with KILN_SOURCE_DIR=/work/main (tests and benchmarks read task data
# and candidates from there).
[ -e /work/main/tasks ] || { mkdir -p /work && ln -sfn "$root" /work/main 2>/dev/null; }
# The CUDA toolkit (NVRTC and its builtins) is the machine's own.
export LD_LIBRARY_PATH=/tmp/rt/lib:/usr/local/cuda/lib64
export KILN_CACHE_DIR=${KILN_CACHE_DIR:-/tmp/kiln-cache}
log() { echo "== $* ($(date +%T))"; }

smoke() {
    for f in vector_add_naive softmax_device_only hostile_illegal_address vector_add_float4 \
             game_side_stream reduce_sum_warp_shuffle hostile_infinite_loop transpose_tiled; do
        file=$root/tests/data/candidates/cuda/$f.cu
        task=$(head -1 "$file" | sed -n 's/.*task=\([a-z_]*\).*/\1/p')
        timeout 120 "$bin/kiln-cli" eval --task "$task" --backend cuda --seed 3 --json "$file" \
            > "$out/smoke-$f.json" 2> "$out/smoke-$f.err"
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['verdict'], d.get('speedup'), '|', d['summary'][:150])" \
            "$out/smoke-$f.json" "$f" 2>/dev/null || { echo "$f: no document"; tail -3 "$out/smoke-$f.err"; }
    done
}
tests() {
    "$bin/tst_cudaparsing" -silent
    timeout 420 "$bin/tst_verifiercuda" -o "$out/tst_verifiercuda.txt,txt" -o -,txt \
        | grep -E "^(FAIL|SKIP|Totals|QWARN)|Loc:" | head -60
}
bench() {
    timeout 480 "$bin/bench_cuda_verifier" --out "$out/bench_cuda_verifier.json" ${BENCH_ARGS:-} \
        > /dev/null
}
contexts() {
    timeout 120 "$bin/bench_context_rate" > "$out/context_rate.json" && cat "$out/context_rate.json"
}
ncu() {
    timeout 480 "$root/bench/cuda/ncu_agreement.sh" "$bin" "$out/ncu"
}
search() {
    timeout 240 "$bin/kiln-cli" run --task softmax --backend cuda --strategy beam --param beams=2 \
        --param children=3 --budget 16 --seed 5 --db "$out/search.db" --json > "$out/search.json"
    "$bin/kiln-cli" report --db "$out/search.db" --run 1 | head -40
}

launcher() {
    local budget=${SEARCH_BUDGET:-120}
    SEARCH_ARGS="--param round_limit=32 --param allocation=even" timeout 500 \
        "$root/bench/cuda/search_throughput.sh" "$out/launcher" "$bin:$budget:KILN_CUDA_LAUNCHER=0" \
        "$bin:$budget"
    python3 "$root/bench/cuda/stage_summary.py" "$out"/launcher/*.db
}

before_after() {
    local old=${KILN_DEVICE_OLD_BIN:?set KILN_DEVICE_OLD_BIN to the binaries of an older build}
    for f in ${BEFORE_AFTER:-layernorm_twopass layernorm_welford game_fingerprint_cache \
             matmul_tiled vector_add_naive softmax_online game_pointer_cache}; do
        file=$root/tests/data/candidates/cuda/$f.cu
        task=$(head -1 "$file" | sed -n 's/.*task=\([a-z_]*\).*/\1/p')
        for build in old new; do
            dir=$bin
            [ "$build" = old ] && dir=$old
            start=$(date +%s.%N)
            KILN_CACHE_DIR=/tmp/kiln-cache-$build timeout 180 "$dir/kiln-cli" eval --task "$task" \
                --backend cuda --seed 3 --json "$file" >"$out/ba-$f-$build.json" 2>/dev/null
            end=$(date +%s.%N)
            python3 "$root/bench/cuda/evaluation_line.py" "$out/ba-$f-$build.json" "$f" "$build" \
                "$start" "$end" 2>/dev/null ||
                echo "$f $build: no document"
        done
    done
}

log "devices"
nvidia-smi --query-gpu=index,name,clocks.max.sm,memory.total --format=csv
"$bin/kiln-cuda-sandbox" --probe
# Steps run in the order given.
for s in ${steps//,/ }; do
    case $s in
    smoke | tests | bench | contexts | ncu | search | launcher | before_after) log "$s"; "$s" ;;
    *) echo "unknown step: $s" >&2 ;;
    esac
done
log "end"
# At most 8 files come back from the machine: everything in one archive.
tar czf "$out/results.tgz" -C "$out" --exclude results.tgz --exclude 'cache-*' . 2>/dev/null
