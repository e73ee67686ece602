#!/usr/bin/env bash
# Remakes every picture of docs/user-guide.md from real runs.
#
#   scripts/screenshots.sh BUILD_DIR [OUT_DIR]      (OUT_DIR defaults to docs/images)
#
# It makes its own runs with BUILD_DIR/bin/kiln-cli on the CPU backend with the offline
# (simulated) policy, in temporary databases, finds the candidates each picture needs in
# `kiln-cli export --format json` / `kiln-cli report --json`, and renders the window with
# `kiln ... --screenshot` and the plots with `kiln --plot ... --export`, offscreen. Half a
# minute on two cores with a warm compile cache, a little more without; nothing needs a GPU or
# a display.
#
# Pictures --screenshot cannot make:
#   kiln-launcher.png, kiln-live-run.png  the launcher is a dialog, and --screenshot of a run
#       started with --new-run waits for the run to end. Both come from the GUI test
#       tst_liverun (launcherStartsALiveRun saves them when KILN_SCREENSHOT_DIR is set), run
#       here when BUILD_DIR/bin/tst_liverun exists; otherwise the existing files are kept.
#   kiln-workshop.png  the workshop dialog beside the window after exercise 1, from the GUI test
#       tst_workshopwindow (KILN_SCREENSHOT_DIR), run here when it is built.
#   kiln-tree-10k.png  needs the synthetic 10,000-candidate run that kiln_bench_gui generates
#       (a benchmark binary); kept as it is when BUILD_DIR/bin/kiln_bench_gui is missing.
# Presentation mode (F11) and a replay in progress have no command-line switch, so the guide
# has no picture of them; the Growth bar shows at the bottom of every window picture.
#
# The pictures are rendered into a temporary folder and copied to OUT_DIR only when all of them
# were made.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 BUILD_DIR [OUT_DIR]   (OUT_DIR defaults to docs/images)" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
out=${2:-$repo/docs/images}
bin=$build/bin
cli=$bin/kiln-cli
kiln=$bin/kiln
for exe in "$cli" "$kiln" "$bin/kiln-sandbox"; do
    [ -x "$exe" ] || { echo "$0: $exe is missing: build the project first" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "$0: python3 is needed to read the JSON" >&2; exit 2; }
candidates=$repo/tests/data/candidates/cpu
mkdir -p "$out"

work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-screenshots.XXXXXX")
trap 'rm -rf "$work"' EXIT
img=$work/images
mkdir -p "$img" "$work/runtime" "$work/config"
chmod 700 "$work/runtime"
# Offscreen, and away from the user's settings (the window's remembered layout is ignored by
# --screenshot anyway).
export QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=$work/runtime XDG_CONFIG_HOME=$work/config
log=$work/log
started=$SECONDS
say() { printf '[%3ds] %s\n' $((SECONDS - started)) "$*"; }
fail() { echo "$0: $*" >&2; [ -s "$log" ] && tail -20 "$log" >&2; exit 1; }

# kiln-cli with its progress kept out of sight (shown when it fails).
cli() { "$cli" "$@" 2>"$log" || fail "kiln-cli $* failed"; }
# The window, rendered: shot NAME.png KILN-ARGS...
shot() {
    local name=$1
    shift
    "$kiln" "$@" --screenshot "$img/$name" 2>"$log" || fail "kiln $* failed"
    say "$name"
}
# One plot without a window: plot NAME.png KILN-ARGS...
plot() {
    local name=$1
    shift
    "$kiln" "$@" --export "$img/$name" 2>"$log" || fail "kiln $* failed"
    say "$name"
}
json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

# pick EXPORT.json WHAT: the id of a candidate a picture needs (stdout), or an error.
cat >"$work/pick.py" <<'EOF'
import difflib, json, sys

doc = json.load(open(sys.argv[1]))
what = sys.argv[2]
cands = doc["candidates"]
by_id = {c["id"]: c for c in cands}

def ev(c):
    return c.get("evaluation") or {}

def verdict(c):
    return ev(c).get("verdict")

def lined_flags(c, blocking=None):
    return [f for f in ev(c).get("flags", [])
            if f.get("lines") and (blocking is None or f.get("blocking") == blocking)]

def diagnostic_lines(c):
    for s in ev(c).get("stages", []):
        if s.get("name") == "compile":
            return [d for d in (s.get("data") or {}).get("diagnostics", [])
                    if isinstance(d, dict) and d.get("line", 0) > 0]
    return []

searched = [c for c in cands if c["operation"] != "manual"]
passing = [c for c in searched if verdict(c) == "pass" and ev(c).get("speedup")]
found = []
if what == "best":          # the search's fastest passing candidate, with a parent if one is close
    found = sorted(passing, key=lambda c: -ev(c)["speedup"])
elif what == "flagged":     # a cheat whose blocking flag points at a line, the most flags first
    found = sorted([c for c in searched if verdict(c) == "flagged" and lined_flags(c, True)],
                   key=lambda c: (-len(ev(c)["flags"]), c["id"]))
    found += [c for c in searched if verdict(c) == "flagged" and lined_flags(c)]
elif what == "compile-error":  # a compile error the compiler placed on a line
    found = [c for c in searched if verdict(c) == "compile_error" and diagnostic_lines(c)]
elif what == "fixed":       # a refinement that fixed its parent's compile error in a line or two
    def change(c):          # (no line changed in place, lines changed) against the parent
        a = by_id[c["parent"]]["source"].splitlines()
        b = c["source"].splitlines()
        ops = difflib.SequenceMatcher(None, a, b).get_opcodes()
        changed = sum(max(i2 - i1, j2 - j1) for t, i1, i2, j1, j2 in ops if t != "equal")
        return (not any(t == "replace" for t, *_ in ops), changed)
    refined = [c for c in searched if c["operation"] == "refine" and verdict(c) == "pass"
               and c.get("parent") in by_id]
    found = sorted([c for c in refined if verdict(by_id[c["parent"]]) == "compile_error"],
                   key=change) + sorted(refined, key=change)
else:
    sys.exit("unknown choice " + what)
if not found:
    sys.exit("no candidate for '%s' in run %s" % (what, doc["run"]["id"]))
print(found[0]["id"])
EOF
pick() { python3 "$work/pick.py" "$@" || fail "the run has no candidate the picture needs"; }
export_run() { cli export --db "$1" --run "$2" --format json --out "$3"; }

# ---- 1. An evolutionary search on softmax, and a refinement run beside it --------------------
db=$work/softmax.db
say "evolve run on softmax (budget 40)"
evolve=$(cli run --task softmax --strategy evolve --budget 40 --seed 1 --backend cpu \
    --param islands=2 --param population=4 --param gaming_rate=0.15 --db "$db" --json |
    json_field run_id)
say "refine run on softmax (budget 12)"
refine=$(cli run --task softmax --strategy refine --budget 12 --seed 1 --backend cpu --db "$db" \
    --json | json_field run_id)
export_run "$db" "$evolve" "$work/evolve.json"
export_run "$db" "$refine" "$work/refine.json"
best=$(pick "$work/evolve.json" best)
flagged=$(pick "$work/evolve.json" flagged)
fixed=$(pick "$work/refine.json" fixed)
if broken=$(python3 "$work/pick.py" "$work/evolve.json" compile-error 2>/dev/null); then
    broken_run=$evolve
else
    broken=$(pick "$work/refine.json" compile-error)
    broken_run=$refine
fi
say "evolve run $evolve: best #$best, flagged #$flagged; refine run $refine: fixed #$fixed"

shot kiln-tree.png --db "$db" --run "$evolve" --select "$best" --view tree
shot kiln-table.png --db "$db" --run "$evolve" --select "$flagged" --view table
shot kiln-code.png --db "$db" --run "$evolve" --select "$flagged" --view code
shot kiln-report.png --db "$db" --run "$evolve" --select "$flagged" --view report
shot kiln-compile-error.png --db "$db" --run "$broken_run" --select "$broken" --view code
shot kiln-diff.png --db "$db" --run "$refine" --select "$fixed" --view diff
shot kiln-transcript.png --db "$db" --run "$refine" --select "$fixed" --view transcript
plot plot-reasoning.png --db "$db" --run "$evolve" --plot reasoning
plot plot-timing.png --db "$db" --run "$evolve" --select "$best" --plot timing
plot plot-roofline.png --db "$db" --run "$evolve" --select "$best" --plot roofline

# ---- 2. Hand-written kernels join the evolve run (after its own pictures) --------------------
say "submitting a hand-written kernel and a gaming one as children of #$best"
mine=$(cli submit --db "$db" --run "$evolve" --parent "$best" --note "written by hand" --json \
    "$candidates/softmax_openmp.cpp" | json_field candidate_id)
cli submit --db "$db" --run "$evolve" --parent "$best" --note "a hand-written cheat" --json \
    "$candidates/game_input_mutation.cpp" >/dev/null
shot kiln-manual.png --db "$db" --run "$evolve" --select "$mine" --view tree

# ---- 3. Three strategies at an equal budget, three seeds each, in the window -----------------
cmp=$work/compare.db
say "comparison: best-of-n, refine, beam x 3 seeds at 16 evaluations (the longest step)"
shot kiln-compare.png --db "$cmp" --compare --task softmax --strategies best-of-n,refine,beam \
    --budget 16 --seeds 3
cli report --db "$cmp" --json >"$work/compare.json"
ids=$(python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
ids = [r["id"] for r in runs]
bon = [r["id"] for r in runs if r["strategy"] == "best-of-n" and str(r.get("seed")) == "1"]
print(",".join(map(str, ids)), (bon or ids)[0])' "$work/compare.json") || fail "no comparison runs"
read -r all_runs sampled <<<"$ids"
plot plot-speedup.png --db "$cmp" --runs "$all_runs" --plot speedup --x-axis evals
plot plot-coverage.png --db "$cmp" --run "$sampled" --plot coverage

# ---- 3b. A suite's coverage, drawn per task; the window before any run -----------------------
suite=$work/suite.db
say "best-of-n over four tasks, even allocation, for the coverage per task"
cli run --suite vector_add,softmax,matmul,transpose --strategy best-of-n --budget 24 --seed 7 \
    --backend cpu --param allocation=even --db "$suite" >/dev/null
plot plot-coverage-suite.png --db "$suite" --plot coverage
shot kiln-start.png

# ---- 4. The leaky verifier: a lenient run and its strict rejudgement -------------------------
leaky=$work/leaky.db
say "lenient run on reduce_sum and its strict rejudgement"
lenient=$(cli run --task reduce_sum --strategy best-of-n --budget 10 --seed 5 --backend cpu \
    --verifier lenient --param gaming_rate=0.5 --param stuck_share=0 --db "$leaky" --json |
    json_field run_id)
strict=$(cli rejudge --db "$leaky" --run "$lenient" --json | json_field run_id)
plot plot-lenient.png --db "$leaky" --runs "$lenient,$strict" --plot speedup --x-axis evals

# ---- 5. Pictures --screenshot cannot make alone (see the top of this file) -------------------
kept=()
if [ -x "$bin/kiln_bench_gui" ]; then
    "$bin/kiln_bench_gui" generate "$work/big.db" 10000 2>"$log" || fail "kiln_bench_gui failed"
    shot kiln-tree-10k.png --db "$work/big.db" --view tree
else
    kept+=(kiln-tree-10k.png)
fi
if [ -x "$bin/tst_liverun" ]; then
    mkdir -p "$work/liverun"
    (cd "$work" && KILN_SCREENSHOT_DIR=$work/liverun "$bin/tst_liverun" launcherStartsALiveRun \
        >"$log" 2>&1) || fail "tst_liverun launcherStartsALiveRun failed"
    for name in kiln-launcher.png kiln-live-run.png; do
        [ -s "$work/liverun/$name" ] || fail "tst_liverun saved no $name"
        cp "$work/liverun/$name" "$img/$name"
        say "$name (tst_liverun)"
    done
else
    kept+=(kiln-launcher.png kiln-live-run.png)
fi
if [ -x "$bin/tst_workshopwindow" ]; then
    mkdir -p "$work/workshop"
    (cd "$work" && KILN_SCREENSHOT_DIR=$work/workshop KILN_WORKSHOP_SCALE=0.5 \
        "$bin/tst_workshopwindow" \
        "everyExerciseRunsFromTheWindow:exercise 1" >"$log" 2>&1) ||
        fail "tst_workshopwindow exercise 1 failed"
    [ -s "$work/workshop/kiln-workshop.png" ] || fail "tst_workshopwindow saved no kiln-workshop.png"
    cp "$work/workshop/kiln-workshop.png" "$img/"
    say "kiln-workshop.png (tst_workshopwindow)"
else
    kept+=(kiln-workshop.png)
fi

cp "$img"/*.png "$out"/
say "$(ls "$img" | wc -l) pictures written to $out"
for name in ${kept[@]+"${kept[@]}"}; do
    echo "kept the existing $name (its maker is not in $bin)"
done
