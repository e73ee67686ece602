#!/usr/bin/env python3
"""Where a search's evaluation time went: per stage, the number of evaluations that reached it
and the median and total milliseconds, from a run database (the stages table)."""
import sqlite3
import statistics
import sys

for path in sys.argv[1:]:
    db = sqlite3.connect(path)
    rows = db.execute("SELECT name, ms FROM stages").fetchall()
    by = {}
    for name, ms in rows:
        by.setdefault(name, []).append(ms)
    parts = [f"{name} n={len(v)} median={statistics.median(v):.0f} ms total={sum(v) / 1e3:.1f} s"
             for name, v in by.items()]
    print(f"{path}: " + "; ".join(parts))
