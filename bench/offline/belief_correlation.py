#!/usr/bin/env python3
"""How well the offline policy's knob beliefs predict measured speed.

Reads the TSV files that cpu_harness / variant_harness write (columns task, variant, origin,
quality, ..., ms, ...; `quality` is the variant's mean belief) and prints, per task, Pearson
r(belief, speed) with speed = 1 / time, and Spearman's rank correlation. The beliefs are tags set
from published guidance (docs/offline-policy.md), so every timing read here is out of sample.

usage: belief_correlation.py RESULT.tsv [RESULT.tsv ...]
"""
import csv
import math
import sys


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2.0
        i = j + 1
    return result


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
        rho = pearson(ranks(beliefs), ranks(speeds))
        print(f"| {task} | {len(beliefs)} | {pearson(beliefs, speeds):.2f} | {rho:.2f} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
