#!/usr/bin/env python3
"""Where a search's evaluation time went: per stage, the number of evaluations that reached it
and the median and total milliseconds, from a run database (the stages table); and which
process device-only candidates ran in (the compile stage's `process`: the launcher or a
single-use sandbox) with the launcher's median scrub time."""
import json
import sqlite3
import statistics
import sys

for path in sys.argv[1:]:
    db = sqlite3.connect(path)
    rows = db.execute("SELECT name, ms, data_json, ok FROM stages").fetchall()
    by = {}
    processes = {}
    scrubs = []
    for name, ms, data, ok in rows:
        by.setdefault(name, []).append(ms)
        fields = json.loads(data or "{}")
        if name == "compile":
            key = fields.get("process") or (f"{fields.get('path', '?')} " +
                                            ("(host code)" if ok else "(compile error)"))
            processes[key] = processes.get(key, 0) + 1
        if "scrub_ms" in fields:
            scrubs.append(fields["scrub_ms"])
    parts = [f"{name} n={len(v)} median={statistics.median(v):.0f} ms total={sum(v) / 1e3:.1f} s"
             for name, v in by.items()]
    print(f"{path}: " + "; ".join(parts))
    scrub = f"; scrub median {statistics.median(scrubs):.2f} ms (n={len(scrubs)})" if scrubs else ""
    print("  processes: " + ", ".join(f"{k} {v}" for k, v in sorted(processes.items())) + scrub)
