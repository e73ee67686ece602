#!/usr/bin/env python3
"""The allocation study's table: per allocation, over seeds, the suite score (the geometric
mean over tasks of max(1, the task's best passing speedup): a task with nothing faster keeps
the reference), the tasks with a pass, and the evaluations per task; then each allocation's
paired difference from even (same seed) with its 95 % t-interval.
Usage: allocation_table.py OUT (the CSV exports allocation_study.sh wrote)."""
import csv
import glob
import math
import os
import statistics
import sys

T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def score(path):
    best, evaluations = {}, {}
    with open(path) as f:
        for row in csv.DictReader(f):
            task = row["task"]
            evaluations[task] = evaluations.get(task, 0) + 1
            best.setdefault(task, 1.0)
            if row["verdict"] == "pass" and row["speedup"] and not row["duplicate_of"]:
                best[task] = max(best[task], float(row["speedup"]))
    geo = math.exp(sum(math.log(b) for b in best.values()) / len(best))
    passed = sum(1 for b in best.values() if b > 1.0)
    return geo, passed, evaluations


def interval(values):
    if len(values) < 2:
        return float("nan")
    return T95.get(len(values) - 1, 2.0) * statistics.stdev(values) / math.sqrt(len(values))


def main(out):
    runs = {}
    for path in sorted(glob.glob(os.path.join(out, "*.csv"))):
        mode, seed = os.path.basename(path)[:-4].rsplit("-", 1)
        runs.setdefault(mode, {})[int(seed)] = score(path)
    print("| allocation | seeds | suite score (geo-mean of max(1, best)) | tasks faster than the reference | evaluations per task (min-max, mean over seeds) | paired difference from even, 95 % interval |")
    print("|---|---|---|---|---|---|")
    for mode in ("even", "adaptive", "diagnosed"):
        if mode not in runs:
            continue
        seeds = sorted(runs[mode])
        scores = [runs[mode][s][0] for s in seeds]
        passed = [runs[mode][s][1] for s in seeds]
        spreads = [(min(runs[mode][s][2].values()), max(runs[mode][s][2].values())) for s in seeds]
        diffs = [runs[mode][s][0] - runs["even"][s][0] for s in seeds if s in runs.get("even", {})]
        diff = ("-" if mode == "even" else
                f"{statistics.mean(diffs):+.3f} ± {interval(diffs):.3f}")
        print(f"| {mode} | {len(seeds)} | {statistics.mean(scores):.3f} ± {interval(scores):.3f} "
              f"| {statistics.mean(passed):.1f} | {statistics.mean(a for a, _ in spreads):.1f}-"
              f"{statistics.mean(b for _, b in spreads):.1f} | {diff} |")


if __name__ == "__main__":
    main(sys.argv[1])
