# inline_builds.py: inline-CUDA candidates built both ways, load_inline and Kiln's fast build
# (src/sandbox/kiln_inline_build.py), each cold in a folder of its own and a process of its own,
# then run on their problem's inputs: the outputs must be equal bit for bit. Prints one JSON
# object: per candidate the two build times, how Kiln built it, and whether the outputs agree.
# Used by tst_torchbackend (three candidates) and bench/kernelbench/inline_build.sh (all, with
# the build-time ratio), and by tst_torchcpu (--device cpu, a C++-only extension). Needs torch
# with CUDA and a GPU, except with --device cpu.
#
#   python3 inline_builds.py --worker-dir build/ci/bin --tasks-dir TASKS [--jobs N]
#                            [--device cpu] FILE...

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def expected_task(path):
    with open(path) as source:
        match = re.search(r"task=(\S+)", source.readline())
    return match.group(1) if match else None


def load(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_and_run(way, candidate, reference, out, headers, worker_dir, device):
    """In a process of its own: the candidate imported (its extension built `way`), run once
    on the reference's inputs; outputs saved to out, a JSON line printed."""
    import torch

    fast = None
    if way == "kiln":
        sys.path.insert(0, worker_dir)
        from kiln_inline_build import FastInlineBuild

        fast = FastInlineBuild(headers, may_build=True)
        fast.install()
    began = time.perf_counter()
    module = load(candidate, "candidate")
    seconds = time.perf_counter() - began
    problem = load(reference, "reference")
    torch.manual_seed(0)
    init = list(problem.get_init_inputs())
    inputs = [v.to(device) if isinstance(v, torch.Tensor) else v for v in problem.get_inputs()]
    torch.manual_seed(1)
    model = module.ModelNew(*init).to(device)
    with torch.no_grad():
        outputs = model(*inputs)
    if device == "cuda":
        torch.cuda.synchronize()
    outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    torch.save([o.cpu() if isinstance(o, torch.Tensor) else o for o in outputs], out)
    print(json.dumps({"seconds": round(seconds, 2), "builds": fast.records if fast else []}))


def one(args, way, candidate, task, folder):
    env = dict(os.environ, TORCH_EXTENSIONS_DIR=os.path.join(folder, way))
    out = os.path.join(folder, way + ".pt")
    command = [sys.executable, os.path.abspath(__file__), "--one", way, candidate,
               os.path.join(args.tasks_dir, task, "reference.py"), out, args.headers,
               args.worker_dir, args.device]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["out"] = out
    return result


def compare(candidate, args, scratch):
    import torch

    task = expected_task(candidate)
    folder = tempfile.mkdtemp(dir=scratch)
    row = {"candidate": os.path.basename(candidate), "task": task}
    for way in ("torch", "kiln"):
        row[way] = one(args, way, candidate, task, folder)
    if "out" in row["torch"] and "out" in row["kiln"]:
        a = torch.load(row["torch"]["out"])
        b = torch.load(row["kiln"]["out"])
        row["equal"] = len(a) == len(b) and all(
            torch.equal(x, y) if isinstance(x, torch.Tensor) else x == y for x, y in zip(a, b))
    return row


def prepare(args):
    """Kiln's headers, made once before any timed build (they are per machine, not per
    candidate)."""
    sys.path.insert(0, args.worker_dir)
    from kiln_inline_build import FastInlineBuild

    fast = FastInlineBuild(args.headers, may_build=True)
    fast.install()
    began = time.perf_counter()
    made = fast.prepare()
    return {"made": made, "seconds": round(time.perf_counter() - began, 1)}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        build_and_run(*sys.argv[2:9])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker-dir", required=True)
    parser.add_argument("--tasks-dir", required=True)
    parser.add_argument("--headers", default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--device", default="cuda", help="cuda, or cpu (C++-only extensions)")
    parser.add_argument("candidates", nargs="+")
    args = parser.parse_args()
    args.worker_dir = os.path.abspath(args.worker_dir)
    scratch = tempfile.mkdtemp(prefix="kiln-inline-builds-")
    args.headers = args.headers or os.path.join(scratch, "headers")
    report = {"headers": prepare(args)}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(lambda c: compare(os.path.abspath(c), args, scratch), args.candidates))
    report["candidates"] = rows
    for row in rows:
        for way in ("torch", "kiln"):
            row[way].pop("out", None)
    shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
