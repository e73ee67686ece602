#!/usr/bin/env bash
# Rebuilds the golden-file tests (tests/golden) and runs them with KILN_REFRESH_GOLDEN=1, which
# rewrites their expected files under tests/golden/expected/ from what Kiln prints now.
# Review the result (git diff tests/golden/expected) before committing it: every change there
# is a change in what users see. Usage: scripts/refresh-golden.sh [PRESET] (default: ci).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-ci}
[ -f "build/$preset/CMakeCache.txt" ] || cmake --preset "$preset"
cmake --build --preset "$preset" --target tst_goldenformatters tst_goldencli
KILN_REFRESH_GOLDEN=1 ctest --preset "$preset" -R '^tst_golden'
git status --short -- tests/golden/expected || true
