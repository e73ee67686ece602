#!/usr/bin/env python3
"""The offline policy's per-step figures, measured through real verification, beside the
published figures its presets are set from (docs/offline-policy.md).

Reads a bench/strategy_study.sh output made with STRATEGIES=best-of-n,chain at BUDGET=5
(bench/offline/calibration.sh runs it): per (variant, task, seed) one best-of-n run of five
samples and one chain (one sample, then four refinement turns that read the verifier's feedback).

usage: calibration.py OUT_DIR
"""
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from strategy_study import pearson  # noqa: E402  (bench/strategy_study.py)

TARGETS = {  # variant -> published figures (docs/offline-policy.md cites each)
    "frontier": {"pass@1": 0.47, "pass@5": 0.56, "after_turns": 0.82},
    "weak": {"pass@1": 0.20, "pass@5": None, "after_turns": 0.56},
}


def runs(out, variant, strategy):
    for path in sorted(glob.glob(os.path.join(out, "runs", variant, "*", strategy, "seed*.json"))):
        with open(path) as f:
            yield json.load(f)


def width(out, variant):
    samples = passes = covered = n = 0
    for doc in runs(out, variant, "best-of-n"):
        ok = [c["verdict"] == "pass" for c in doc["candidates"]]
        samples += len(ok)
        passes += sum(ok)
        covered += any(ok)
        n += 1
    return n, passes / max(samples, 1), covered / max(n, 1)


def depth(out, variant):
    chains = first_ok = last_ok = any_ok = 0
    first_speed = best_speed = 0.0
    fixes = fix_tries = faster = timing_turns = 0
    for doc in runs(out, variant, "chain"):
        cands = sorted(doc["candidates"], key=lambda c: c["id"])
        if not cands:
            continue
        by_id = {c["id"]: c for c in cands}
        chains += 1
        ok = [c["verdict"] == "pass" for c in cands]
        first_ok += ok[0]
        last_ok += ok[-1]
        any_ok += any(ok)
        first_speed += cands[0]["speedup"] or 0.0
        best_speed += max((c["speedup"] or 0.0) for c in cands)
        for c in cands[1:]:
            parent = by_id.get(c["parent"])
            if not parent:
                continue
            if parent["verdict"] == "pass":
                timing_turns += 1
                faster += c["verdict"] == "pass" and (c["ms"] or 1e30) < (parent["ms"] or 0)
            else:
                fix_tries += 1
                fixes += c["verdict"] == "pass"
    return {
        "chains": chains,
        "first": first_ok / max(chains, 1),
        "last": last_ok / max(chains, 1),
        "any": any_ok / max(chains, 1),
        "mean_first": first_speed / max(chains, 1),
        "mean_best": best_speed / max(chains, 1),
        "fix_rate": fixes / max(fix_tries, 1),
        "fix_tries": fix_tries,
        "faster_rate": faster / max(timing_turns, 1),
        "timing_turns": timing_turns,
    }


def reasoning(out, variant):
    """Mean trace length of passing and failing samples, and r(tokens, log speedup) of the
    passing ones within each task (tasks differ in both length and speedup), averaged."""
    passed, failed, per_task = [], [], {}
    for strategy in ("best-of-n", "chain"):
        for doc in runs(out, variant, strategy):
            for c in doc["candidates"]:
                tokens = c.get("reasoning_tokens")
                if tokens is None or c["op"] != "sample":
                    continue
                (passed if c["verdict"] == "pass" else failed).append(tokens)
                if c["speedup"]:
                    per_task.setdefault(doc["task"], []).append((tokens, math.log(c["speedup"])))
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    rs = [pearson([t for t, _ in p], [s for _, s in p]) for p in per_task.values()]
    rs = [r for r in rs if not math.isnan(r)]
    return mean(passed), mean(failed), mean(rs), sum(len(p) for p in per_task.values())


def fmt(value, target=None):
    text = f"{value:.2f}"
    return text + (f" (published {target:.2f})" if target is not None else "")


def main(out):
    variants = sorted(os.listdir(os.path.join(out, "runs")))
    print("| preset | runs | pass@1 | pass@5 | chain: first sample passes | after 4 turns (last passes)"
          " | any pass in chain | mean speedup, first → best (fails 0) | fix rate of a turn on a"
          " failed kernel | timing turns that made it faster |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for v in variants:
        name = "frontier" if v == "base" else v
        t = TARGETS.get(name, {})
        n, p1, p5 = width(out, v)
        d = depth(out, v)
        print(f"| {name} | {n} | {fmt(p1, t.get('pass@1'))} | {fmt(p5, t.get('pass@5'))} | "
              f"{d['first']:.2f} | {fmt(d['last'], t.get('after_turns'))} | {d['any']:.2f} | "
              f"{d['mean_first']:.2f}x → {d['mean_best']:.2f}x | {d['fix_rate']:.2f} "
              f"({d['fix_tries']}) | {d['faster_rate']:.2f} ({d['timing_turns']}) |")
    print()
    print("| preset | reasoning tokens, passing samples | failing samples | r(tokens, log speedup),"
          " passing samples, within task, averaged (ConCuR: -0.05) |")
    print("| --- | --- | --- | --- |")
    for v in variants:
        name = "frontier" if v == "base" else v
        tp, tf, r, n = reasoning(out, v)
        print(f"| {name} | {tp:.0f} | {tf:.0f} | {r:.2f} (n = {n}) |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
