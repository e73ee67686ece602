#!/usr/bin/env python3
"""Tables of bench/agents/agents_vs_search.sh (files LABEL.TASK.SEED.json, '+' of a label written
'-'): per task and configuration the mean best speedup over the seeds (a run with no correct
candidate counts 0) and, for the memory configurations, the mean over seeds after the first;
then per configuration the geometric mean over (task, seed) of its best speedup over refine's and
over best-of-n's on the same task and seed (pairs where the other found nothing are left out and
counted), candidates and tokens per run."""
import glob
import json
import math
import os
import statistics
import sys

ORDER = ["best-of-n", "refine", "beam", "refine-memory", "beam-memory", "agents", "agents-memory"]


def load(folder):
    runs = {}
    for path in glob.glob(os.path.join(folder, "*.*.*.json")):
        label, task, seed = os.path.basename(path)[:-5].split(".")
        try:
            doc = json.load(open(path))
        except ValueError:
            continue
        best = (doc.get("best") or {}).get("speedup") or 0.0
        used = doc.get("budget_used") or {}
        spent = sum(used.get(k, 0) for k in ("prompt_tokens", "completion_tokens", "reasoning_tokens"))
        runs[(label, task, int(seed))] = (best, doc.get("candidates", 0), spent)
    return runs


def geomean_ratio(runs, label, other):
    logs, missing = [], 0
    for (l, task, seed), (best, _, _) in runs.items():
        if l != label:
            continue
        base = runs.get((other, task, seed))
        if not base or base[0] <= 0 or best <= 0:
            missing += 1
            continue
        logs.append(math.log(best / base[0]))
    if not logs:
        return "-"
    text = "%.2fx" % math.exp(statistics.mean(logs))
    return text + (" (%d left out)" % missing if missing else "")


def main():
    runs = load(sys.argv[1])
    tasks = sorted({k[1] for k in runs})
    labels = [l for l in ORDER if any(k[0] == l for k in runs)]
    print("| task | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for task in tasks:
        cells = []
        for label in labels:
            bests = [v[0] for k, v in runs.items() if k[0] == label and k[1] == task]
            later = [v[0] for k, v in runs.items() if k[0] == label and k[1] == task and k[2] >= 2]
            cell = "%.2fx" % statistics.mean(bests) if bests else "-"
            if "memory" in label and later:
                cell += " (2+: %.2fx)" % statistics.mean(later)
            cells.append(cell)
        print("| %s | %s |" % (task, " | ".join(cells)))
    print()
    print("| configuration | runs | vs refine (geomean) | vs best-of-n (geomean) | candidates/run | tokens/run |")
    print("|---|---|---|---|---|---|")
    for label in labels:
        mine = [v for k, v in runs.items() if k[0] == label]
        print("| %s | %d | %s | %s | %.1f | %.0f |" % (
            label, len(mine), geomean_ratio(runs, label, "refine"),
            geomean_ratio(runs, label, "best-of-n"),
            statistics.mean(v[1] for v in mine), statistics.mean(v[2] for v in mine)))


if __name__ == "__main__":
    main()
