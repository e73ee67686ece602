#!/usr/bin/env python3
"""Summarise a sweep.sh output folder: verdicts, flags and wall time per level, and every
result that a sweep of references must not have (a crash, an out-of-memory, no result)."""
import collections
import json
import os
import sys

out = sys.argv[1]
by_level = collections.defaultdict(collections.Counter)
flags_by_level = collections.defaultdict(collections.Counter)
problems = []
for name in sorted(os.listdir(out)):
    if not (name.startswith("kb") and name.endswith(".json")):
        continue
    task = name[:-5]
    level = task[2]
    text = open(os.path.join(out, name)).read()
    err = open(os.path.join(out, task + ".err")).read() if os.path.exists(
        os.path.join(out, task + ".err")) else ""
    try:
        result = json.loads(text)
    except ValueError:
        by_level[level]["no result"] += 1
        problems.append((task, "no result", err.strip().splitlines()[-1:] or ["(no output)"]))
        continue
    verdict = result.get("verdict", "?")
    by_level[level][verdict] += 1
    for flag in result.get("flags", []):
        if flag.get("blocking"):
            flags_by_level[level][flag.get("id", "?")] += 1
    memory = "out of memory" in (text + err).lower() or "outofmemory" in (text + err).lower()
    if verdict in ("crash", "verifier_error", "timeout") or memory:
        problems.append((task, verdict + (" (out of memory)" if memory else ""),
                         [result.get("summary", "")[:300]]))

walls = {}
if os.path.exists(os.path.join(out, "levels.tsv")):
    for line in open(os.path.join(out, "levels.tsv")):
        level, count, wall = line.split("\t")
        # One line per level and part of a sweep run in several calls.
        before = walls.get(level, (0, 0.0))
        walls[level] = (before[0] + int(count), before[1] + float(wall))

print("| level | problems | wall s | verdicts | blocking flags |")
print("| --- | --- | --- | --- | --- |")
for level in sorted(by_level):
    count, wall = walls.get(level, (sum(by_level[level].values()), float("nan")))
    verdicts = ", ".join("%s %d" % kv for kv in by_level[level].most_common())
    flags = ", ".join("%s %d" % kv for kv in flags_by_level[level].most_common())
    print("| %s | %d | %.0f | %s | %s |" % (level, count, wall, verdicts, flags))
print()
print("not as a reference should end (%d):" % len(problems))
for task, what, lines in problems:
    print("  %s: %s: %s" % (task, what, " ".join(lines)))
