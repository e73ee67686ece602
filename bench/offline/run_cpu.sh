#!/bin/bash
# Times the offline policy's CPU variant spaces. $1: bench_offline_render <dir> cpu N output.
#   bench/offline/run_cpu.sh <variants-dir> [out-dir]
set -u
variants=$1
out=${2:-offline-bench-cpu}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
g++ -O2 -std=c++17 -o /tmp/cpu_harness "$here/cpu_harness.cpp" -ldl || exit 1
ls "$variants"/*/*.cpp | xargs -P "$(nproc)" -I{} sh -c \
    'g++ -O3 -march=native -fopenmp -fPIC -shared -o "${1%.cpp}.so" "$1" || echo "COMPILE FAILED: $1"' _ {}
for task in $(ls "$variants"); do
    [ -f "$variants/$task/manifest.tsv" ] || continue
    OMP_NUM_THREADS=${OMP_NUM_THREADS:-8} /tmp/cpu_harness "$task" "$variants/$task" > "$out/cpu_$task.tsv"
done
