#!/usr/bin/env python3
"""Measurement noise of the CPU verifier, two builds side by side in one session (issue "Speedups
you can trust", docs/performance.md "Measurement noise").

For each build ("before": the code before the issue, "after": this one), in turn, ROUNDS times:
  1. the README demo's search alone (beam on softmax, 3x3, its default concurrency): its
     evaluations per second, and the spread (max / min) of the speedups that identical sources
     (comments and whitespace aside) got inside it; the after build runs it with
     --param duplicates=remeasure, so duplicates are measured as before rather than reused;
  2. the same search again and, beside it, one honest kernel judged EVALS times by `kiln-cli
     eval`: the spread of its speedups;
  3. with the search still running, each task's own reference submitted as the candidate (an A/A
     test: the truth is 1.00x), AA times per task.
Builds alternate within a round so drift of the machine falls on both.

usage: bench/noise/noise.py OUT_DIR --before KILN_CLI --after KILN_CLI [--evals 8] [--aa 2]
       [--rounds 1] [--budget 30] [--kernel FILE --task TASK]
Prints a table and writes OUT_DIR/noise.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

TASKS = ["vector_add", "reduce_sum", "softmax", "layernorm", "matmul", "transpose"]
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def normalised(source):
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    source = re.sub(r"//[^\n]*", "", source)
    return re.sub(r"\s+", "", source)


def search(cli, db, args, env, extra):
    command = [cli, "run", "--task", "softmax", "--strategy", "beam", "--param", "beams=3",
               "--param", "children=3", "--budget", str(args.budget), "--seed", "1",
               "--db", db, "--json"] + extra
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)


def evaluate(cli, task, path, env):
    out = subprocess.run([cli, "eval", "--task", task, "--backend", "cpu", "--json", path],
                         env=env, capture_output=True, text=True, check=False)
    try:
        result = json.loads(out.stdout)
    except json.JSONDecodeError:
        return {"verdict": "error", "detail": out.stderr.strip()[-200:]}
    interval = result.get("speedup_interval") or {}
    return {"verdict": result.get("verdict"), "speedup": result.get("speedup"),
            "low": interval.get("low"), "high": interval.get("high"),
            "flags": [f.get("id") for f in result.get("flags", [])]}


def duplicate_spreads(cli, db, env):
    """max/min speedup over each group of identical sources measured more than once."""
    out = subprocess.run([cli, "export", "--db", db, "--run", "1", "--format", "json"], env=env,
                         capture_output=True, text=True, check=False)
    groups = {}
    for c in json.loads(out.stdout).get("candidates", []):
        e = c.get("evaluation") or {}
        if e.get("verdict") != "pass" or not e.get("speedup"):
            continue
        if any(s.get("name") == "duplicate" for s in e.get("stages", [])):
            continue  # a reused judgement is no measurement
        groups.setdefault(normalised(c["source"]), []).append(e["speedup"])
    return [max(v) / min(v) for v in groups.values() if len(v) > 1]


def one_build(label, cli, round_index, args):
    tag = f"{label}-{round_index}"
    env = dict(os.environ)
    env["KILN_CACHE_DIR"] = os.path.join(args.out, f"cache-{tag}")
    extra = ["--param", "duplicates=remeasure"] if label == "after" else []
    db = os.path.join(args.out, f"alone-{tag}.db")
    started = time.monotonic()
    alone = search(cli, db, args, env, extra)
    stdout, _ = alone.communicate()
    seconds = time.monotonic() - started
    evals = json.loads(stdout or "{}").get("budget_used", {}).get("evals", 0)
    spreads = duplicate_spreads(cli, db, env)
    beside = search(cli, os.path.join(args.out, f"beside-{tag}.db"), args, env, extra)
    kernel = [evaluate(cli, args.task, args.kernel, env) for _ in range(args.evals)]
    aa = {t: [evaluate(cli, t, os.path.join(REPO, "tasks", t, "reference.cpp"), env)
              for _ in range(args.aa)] for t in TASKS}
    beside.kill()
    beside.communicate()
    return {"build": label, "round": round_index, "search_evals": evals,
            "search_seconds": seconds, "duplicate_spreads": spreads, "kernel": kernel, "aa": aa}


def speedups(results):
    return [r["speedup"] for r in results if isinstance(r.get("speedup"), (int, float))]


def summarise(runs):
    print(f"{'build':6} {'eval/s':>7} {'dup max/min':>11} {'kernel':>14} {'max/min':>8} "
          f"{'A/A':>14} {'flags':>5}")
    for label in ("before", "after"):
        mine = [r for r in runs if r["build"] == label]
        if not mine:
            continue
        kernel = sum((speedups(r["kernel"]) for r in mine), [])
        aa = sum((speedups(v) for r in mine for v in r["aa"].values()), [])
        dups = sum((r["duplicate_spreads"] for r in mine), [])
        rate = sum(r["search_evals"] for r in mine) / sum(r["search_seconds"] for r in mine)
        flags = sum(1 for r in mine for v in [r["kernel"]] + list(r["aa"].values())
                    for x in v if x.get("verdict") != "pass")
        print(f"{label:6} {rate:7.2f} {max(dups, default=1.0):11.3f} "
              f"{min(kernel, default=0):6.2f}-{max(kernel, default=0):<6.2f} "
              f"{(max(kernel) / min(kernel)) if kernel else 0:8.3f} "
              f"{min(aa, default=0):6.3f}-{max(aa, default=0):<6.3f} {flags:5d}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--evals", type=int, default=8)
    parser.add_argument("--aa", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--task", default="softmax")
    parser.add_argument("--kernel",
                        default=os.path.join(REPO, "tests", "data", "candidates", "cpu",
                                             "softmax_openmp.cpp"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    runs = []
    for round_index in range(args.rounds):
        for label, cli in (("before", args.before), ("after", args.after)):
            runs.append(one_build(label, cli, round_index, args))
            print(f"# {label} round {round_index}: kernel "
                  f"{[round(s, 2) for s in speedups(runs[-1]['kernel'])]}", file=sys.stderr)
    with open(os.path.join(args.out, "noise.json"), "w", encoding="utf-8") as handle:
        json.dump(runs, handle, indent=1)
    summarise(runs)


if __name__ == "__main__":
    main()
