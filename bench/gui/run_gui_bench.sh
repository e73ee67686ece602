#!/usr/bin/env bash
# The workbench figures of docs/performance.md, side by side in one run:
#  1. a run of 100,000 candidates read the way the window read it before the lineage query (every
#     candidate's full record and evaluation) and the way it reads it now, three times each,
#     alternating, each in a fresh process so its peak memory is its own;
#  2. results arriving at 100 per second from a run the window makes and from one another
#     writer makes, with the GUI thread's longest stall and the pan frame times.
# usage: bench/gui/run_gui_bench.sh BIN_DIR [WORK_DIR]   (BIN_DIR of a release build)
set -euo pipefail
bin=${1:?usage: $0 BIN_DIR [WORK_DIR]}
work=${2:-$(mktemp -d)}
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
big=$work/big100k.db
if [ ! -f "$big" ]; then
    echo "generating $big (100,000 candidates, crossovers, 4 islands) ..." >&2
    "$bin/kiln_bench_gui" generate "$big" 100000 --crossover --islands 4
fi
echo "## Opening a run of 100,000 candidates"
for i in 1 2 3; do
    "$bin/kiln_bench_gui" load "$big" --full-records 2>/dev/null
    "$bin/kiln_bench_gui" load "$big" 2>/dev/null
done
echo
echo "## Results arriving at ${RATE:-100} per second for ${SECONDS_OF_ARRIVALS:-20} s"
"$bin/kiln_bench_gui" live --rate "${RATE:-100}" --seconds "${SECONDS_OF_ARRIVALS:-20}" 2>/dev/null
