"""Helpers for plotting benchmark results; not a KernelBench problem.

It sits among the problems so that the importer learns to skip files that
define no `class Model` (a docstring that mentions one does not count).
"""
import json


def load_results(path):
    with open(path) as f:
        return json.load(f)


def speedups(results):
    return {name: r["baseline_ms"] / r["kernel_ms"] for name, r in results.items()}
