#!/usr/bin/env python3
"""How well the offline policy's knob beliefs predict measured speed.

Reads the TSV files that cpu_harness / variant_harness write (columns task, variant, origin,
quality, ..., ms, ...; `quality` is the variant's mean belief) and prints, per task, Pearson
r(belief, speed) with speed = 1 / time, and Spearman's rank correlation. The beliefs are tags set
from published guidance (docs/offline-policy.md), so every timing read here is out of sample.

usage: belief_correlation.py RESULT.tsv [RESULT.tsv ...]
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from strategy_study import pearson, spearman  # noqa: E402  (bench/strategy_study.py)


def rows(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    for row in csv.DictReader(lines, delimiter="\t"):
        if row.get("correct", "1") not in ("1", "true") or not row.get("ms"):
            continue
        try:
            ms = float(row["ms"])
            belief = float(row["quality"])
        except (TypeError, ValueError):  # a crash or a variant that did not build
            continue
        if ms > 0:
            yield row["task"], belief, 1.0 / ms


def main(paths):
    data = {}
    for path in paths:
        for task, belief, speed in rows(path):
            data.setdefault(task, ([], []))
            data[task][0].append(belief)
            data[task][1].append(speed)
    print("| task | variants | r(belief, speed) | Spearman |")
    print("| --- | --- | --- | --- |")
    for task in sorted(data):
        beliefs, speeds = data[task]
        print(f"| {task} | {len(beliefs)} | {pearson(beliefs, speeds):.2f} | "
              f"{spearman(beliefs, speeds):.2f} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
