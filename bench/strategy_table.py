#!/usr/bin/env python3
"""Prints the markdown table of bench/strategy_curves.sh: mean best speedup (over seeds) at a
quarter, half and all of the evaluation budget, per task and strategy."""
import json
import sys

rows = []
for path in sys.argv[1:]:
    with open(path) as f:
        doc = json.load(f)
    task = ",".join(doc["tasks"])
    for s in doc["strategies"]:
        curve = [p["best_speedup"] for p in s["curve"]]
        n = len(curve)
        rows.append((task, s["strategy"], curve[n // 4 - 1], curve[n // 2 - 1], curve[-1],
                     s["best_speedup"]["std"], s["best_speedup"]["min"]))

print("| task | strategy | best @ 1/4 budget | @ 1/2 | @ full | std over seeds | worst seed |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]:.2f}x | {r[3]:.2f}x | {r[4]:.2f}x | {r[5]:.2f} | {r[6]:.2f}x |")

# Mean over tasks of the full-budget best, normalised per task by the best strategy there.
by_task = {}
for r in rows:
    by_task.setdefault(r[0], {})[r[1]] = r[4]
totals = {}
for task, strategies in by_task.items():
    top = max(strategies.values()) or 1.0
    for name, value in strategies.items():
        totals.setdefault(name, []).append(value / top)
print()
print("| strategy | mean over tasks of (best / best strategy's best) |")
print("|---|---|")
for name, values in sorted(totals.items(), key=lambda kv: -sum(kv[1])):
    print(f"| {name} | {sum(values) / len(values):.2f} |")
