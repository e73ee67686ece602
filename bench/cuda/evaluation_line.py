"""One line per `kiln-cli eval --json` document: verdict, speedup, wall time, timing stage.
usage: evaluation_line.py FILE.json NAME BUILD START_S END_S"""
import json
import sys

path, name, build, start, end = sys.argv[1:6]
d = json.load(open(path))
timing = next((s for s in d.get("stages", []) if s.get("name") == "timing"), {})
data = timing.get("data", {})
flags = [f["id"] for f in d.get("flags", [])]
print(f"{name:24s} {build:3s} {d['verdict']:8s} speedup={d.get('speedup')} "
      f"eval_s={float(end) - float(start):.2f} timing_ms={timing.get('ms')} "
      f"n={data.get('candidate', {}).get('n')} flags={flags}")
