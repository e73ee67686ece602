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
#   ncu     bench/cuda/ncu_agreement.sh (verifier vs Nsight Compute)
#   search  a short beam search on the CUDA backend with the offline policy
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
export LD_LIBRARY_PATH=/tmp/rt/lib
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
ncu() {
    timeout 480 "$root/bench/cuda/ncu_agreement.sh" "$bin" "$out/ncu"
}
search() {
    timeout 240 "$bin/kiln-cli" run --task softmax --backend cuda --strategy beam --param beams=2 \
        --param children=3 --budget 16 --seed 5 --db "$out/search.db" --json > "$out/search.json"
    "$bin/kiln-cli" report --db "$out/search.db" --run 1 | head -40
}

log "devices"
nvidia-smi --query-gpu=index,name,clocks.max.sm,memory.total --format=csv
"$bin/kiln-cuda-sandbox" --probe
# Steps run in the order given.
for s in ${steps//,/ }; do
    case $s in
    smoke | tests | bench | ncu | search) log "$s"; "$s" ;;
    *) echo "unknown step: $s" >&2 ;;
    esac
done
log "end"
# At most 8 files come back from the machine: everything in one archive.
tar czf "$out/results.tgz" -C "$out" --exclude results.tgz . 2>/dev/null
