#!/usr/bin/env python3
"""Table of bench/agents/agents_vs_search.sh: per configuration, the mean best speedup over the
runs (a run with no correct candidate counts 0), the mean ratio to best-of-n on the same task and
seed, candidates and tokens per run, and for memory configurations the mean over seeds after the
first (whose prompts carry lessons)."""
import glob
import json
import os
import statistics
import sys

ORDER = ["best-of-n", "refine", "beam", "refine+memory", "beam+memory", "agents", "agents+memory"]


def load(folder):
    runs = {}
    for path in glob.glob(os.path.join(folder, "*@*@*.json")):
        label, task, seed = os.path.basename(path)[:-5].split("@")
        try:
            doc = json.load(open(path))
        except ValueError:
            continue
        best = (doc.get("best") or {}).get("speedup") or 0.0
        used = doc.get("budget_used") or {}
        spent = sum(used.get(k, 0) for k in ("prompt_tokens", "completion_tokens", "reasoning_tokens"))
        runs[(label, task, int(seed))] = (best, doc.get("candidates", 0), spent)
    return runs


def main():
    runs = load(sys.argv[1])
    print("| configuration | runs | mean best speedup | vs best-of-n (same task, seed) | "
          "mean best, seeds 2+ | candidates/run | tokens/run |")
    print("|---|---|---|---|---|---|---|")
    for label in ORDER:
        mine = {k: v for k, v in runs.items() if k[0] == label}
        if not mine:
            continue
        ratios = []
        for (_, task, seed), (best, _, _) in mine.items():
            base = runs.get(("best-of-n", task, seed))
            if base and base[0] > 0:
                ratios.append(best / base[0])
        later = [v[0] for k, v in mine.items() if k[2] >= 2]
        print("| %s | %d | %.2fx | %s | %s | %.1f | %.0f |" % (
            label, len(mine), statistics.mean(v[0] for v in mine.values()),
            "%.2fx" % statistics.mean(ratios) if ratios else "-",
            "%.2fx" % statistics.mean(later) if later else "-",
            statistics.mean(v[1] for v in mine.values()),
            statistics.mean(v[2] for v in mine.values())))


if __name__ == "__main__":
    main()
