#!/bin/bash
# Benchmarks the offline policy's CUDA variant spaces on a GPU. Expects the rendered variants
# (bench_offline_render <dir> cuda N) in $1; writes results to $2 (default: ./offline-bench).
#   bench/offline/run_h200.sh <variants-dir> [out-dir]
set -u
variants=$1
out=${2:-offline-bench}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
jobs=$(nproc)
nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/variant_harness "$here/variant_harness.cu" -lcublas || exit 1
for task in $(ls "$variants"); do
    [ -f "$variants/$task/manifest.tsv" ] || continue
    cp "$root/tasks/$task/reference.cu" "$variants/$task/ref.cu"
done
# Each variant as its own shared object, as the verifier builds candidates.
ls "$variants"/*/*.cu | xargs -P "$jobs" -I{} sh -c \
    'nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -o "${1%.cu}.so" "$1" 2> "${1%.cu}.log" || echo "COMPILE FAILED: $1"' _ {}
for task in $(ls "$variants"); do
    [ -f "$variants/$task/manifest.tsv" ] || continue
    /tmp/variant_harness "$task" "$variants/$task" | tee "$out/$task.tsv"
done
