#!/usr/bin/env python3
"""Tables of bench/strategy_study.sh (Python 3 standard library only).

    strategy_study.py compact WORKDIR --out FILE ...   one search's run/report/export -> one JSON
    strategy_study.py retime-plan OUT_DIR [--variants base] [--repeats 3] [--count]
    strategy_study.py collect OUT_DIR                  one JSON per (variant, task, strategy)
    strategy_study.py report OUT_DIR                   markdown tables on stdout

OUT_DIR/runs/<variant>/<task>/<strategy>/seed<N>.json are the compact searches,
OUT_DIR/retime/<task>/<sha>.r<R>.json the re-timings (`kiln-cli eval --json`) of the sources
OUT_DIR/retime/<task>/<sha>.cpp.
"""
import argparse
import hashlib
import json
import math
import os
import statistics
import sys
from collections import defaultdict

STRATEGY_ORDER = ["best-of-n", "refine", "refine-best", "chain", "beam", "greedy", "mcts", "evolve",
                  "two-phase"]
TASK_ORDER = ["vector_add", "reduce_sum", "softmax", "layernorm", "matmul", "transpose"]


# ---------------------------------------------------------------------------------------------
# compact: one search


def _obj(value):
    """export --format json stores some columns as JSON text, others as objects."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return {}
    return value or {}


def compact(args):
    with open(os.path.join(args.workdir, "run.json")) as f:
        run = json.load(f)
    with open(os.path.join(args.workdir, "report.json")) as f:
        report = json.load(f)["runs"][0]
    with open(os.path.join(args.workdir, "export.json")) as f:
        export = json.load(f)
    candidates = []
    passes = []
    for c in sorted(export["candidates"], key=lambda c: (c.get("sample_index", 0), c["id"])):
        e = _obj(c.get("evaluation"))
        m = _obj(c.get("policy_meta"))
        source = c.get("source") or ""
        reasoning = c.get("reasoning") or ""
        followed = None
        if ", so I change " in reasoning:
            followed = True
        elif "; I try " in reasoning:
            followed = False
        timing = e.get("candidate_timing") or {}
        knobs = m.get("knobs") or {}
        item = {
            "id": c["id"],
            "parent": c.get("parent"),
            "parent2": c.get("second_parent"),
            "op": c.get("operation"),
            "round": c.get("round"),
            "index": c.get("sample_index"),
            "island": c.get("island"),
            "generation": c.get("generation"),
            "verdict": e.get("verdict"),
            "speedup": e.get("speedup") if e.get("verdict") == "pass" else None,
            "ms": e.get("candidate_ms"),
            "baseline_ms": e.get("baseline_ms"),
            "sem": timing.get("sem"),
            "n": timing.get("n"),
            "roofline": e.get("roofline_fraction"),
            "quality": m.get("quality"),
            "knobs": ",".join(f"{k}={knobs[k]}" for k in sorted(knobs)),
            "injected": m.get("injected"),
            "feedback": m.get("feedback"),
            "fixed": bool(m.get("fixed_parent")),
            "reasoning_tokens": c.get("reasoning_tokens"),
            "followed": followed,
            "sha": hashlib.sha1(source.encode()).hexdigest()[:16] if source else None,
        }
        candidates.append(item)
        if item["speedup"] is not None:
            passes.append((item["speedup"], c["id"], source, item["sha"]))
    passes.sort(key=lambda p: (-p[0], p[1]))
    doc = {
        "variant": args.variant,
        "task": args.task,
        "strategy": args.strategy,
        "seed": args.seed,
        "budget": args.budget,
        "params": args.params.split(),
        "cores_per_search": args.cores,
        "sandboxes": args.sandboxes,
        "wall_seconds": args.wall,
        "status": report.get("status"),
        "best": report.get("best"),
        "verdicts": report.get("verdicts") or run.get("verdicts"),
        "budget_used": report.get("budget_used"),
        "curve": [[p["evals"], p["best_speedup"]] for p in report.get("curve", [])],
        "candidates": candidates,
        "top_sources": [{"id": i, "speedup": s, "sha": h, "source": src}
                        for s, i, src, h in passes[:max(args.top, 1)]],
    }
    with open(args.out, "w") as f:
        json.dump(doc, f)
    best = doc["best"] or {}
    print(f"best {best.get('speedup') or 0:.2f}x, {len(candidates)} candidates, "
          f"{len(passes)} pass, {args.wall:g} s")


# ---------------------------------------------------------------------------------------------
# loading


def load_runs(out):
    runs = defaultdict(list)  # (variant, task, strategy) -> [doc]
    root = os.path.join(out, "runs")
    if not os.path.isdir(root):
        return runs
    for variant in sorted(os.listdir(root)):
        for task in sorted(os.listdir(os.path.join(root, variant))):
            tdir = os.path.join(root, variant, task)
            for strategy in sorted(os.listdir(tdir)):
                sdir = os.path.join(tdir, strategy)
                for name in sorted(os.listdir(sdir)):
                    if name.startswith("seed") and name.endswith(".json"):
                        with open(os.path.join(sdir, name)) as f:
                            runs[(variant, task, strategy)].append(json.load(f))
    for docs in runs.values():
        docs.sort(key=lambda d: d["seed"])
    return runs


def load_retimes(out, times=None):
    """(task, sha) -> list of re-timed speedups (0 for a repetition that did not pass).
    With a dict `times`, also (task, sha) -> [(candidate_ms, baseline_ms)] of passing ones."""
    result = {}
    root = os.path.join(out, "retime")
    if not os.path.isdir(root):
        return result
    for task in os.listdir(root):
        tdir = os.path.join(root, task)
        for name in os.listdir(tdir):
            if ".r" not in name or not name.endswith(".json"):
                continue
            sha = name.split(".r")[0]
            try:
                with open(os.path.join(tdir, name)) as f:
                    e = json.load(f)
            except ValueError:
                continue
            value = e.get("speedup") if e.get("verdict") == "pass" else 0.0
            result.setdefault((task, sha), []).append(value or 0.0)
            if times is not None and value and e.get("candidate_ms") and e.get("baseline_ms"):
                times.setdefault((task, sha), []).append((e["candidate_ms"], e["baseline_ms"]))
    return result


def retime_plan(args):
    runs = load_runs(args.out)
    variants = set(args.variants.split(","))
    units = []
    seen = set()
    for (variant, task, _), docs in sorted(runs.items()):
        if variant not in variants:
            continue
        for doc in docs:
            for top in doc["top_sources"]:
                key = (task, top["sha"])
                if key in seen:
                    continue
                seen.add(key)
                base = os.path.join(args.out, "retime", task, top["sha"])
                if all(os.path.exists(f"{base}.r{r}.json") for r in range(1, args.repeats + 1)):
                    continue
                if not args.count:
                    os.makedirs(os.path.dirname(base), exist_ok=True)
                    if not os.path.exists(base + ".cpp"):
                        with open(base + ".cpp", "w") as f:
                            f.write(top["source"])
                units.append(key)
    if args.count:
        print(len(units))
    else:
        for task, sha in units:
            print(task, sha)


def collect(out, runs=None, retimes=None):
    runs = runs if runs is not None else load_runs(out)
    retimes = retimes if retimes is not None else load_retimes(out)
    for (variant, task, strategy), docs in runs.items():
        folder = os.path.join(out, "results", variant)
        os.makedirs(folder, exist_ok=True)
        slim = []
        for d in docs:
            d = dict(d)
            d["top_sources"] = [{k: v for k, v in t.items() if k != "source"}
                                for t in d["top_sources"]]
            for t in d["top_sources"]:
                t["retimed"] = retimes.get((task, t["sha"]), [])
            slim.append(d)
        with open(os.path.join(folder, f"{task}__{strategy}.json"), "w") as f:
            json.dump({"variant": variant, "task": task, "strategy": strategy,
                       "budget": docs[0]["budget"], "params": docs[0]["params"],
                       "runs": slim}, f)


# ---------------------------------------------------------------------------------------------
# statistics


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def stdev(values):
    values = list(values)
    return statistics.stdev(values) if len(values) > 1 else 0.0


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(mean(math.log(v) for v in values)) if values else float("nan")


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return r


def pearson(x, y):
    if len(x) < 3:
        return float("nan")
    mx, my = mean(x), mean(y)
    sx = math.sqrt(sum((a - mx) ** 2 for a in x))
    sy = math.sqrt(sum((b - my) ** 2 for b in y))
    if sx == 0 or sy == 0:
        return float("nan")
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sx * sy)


def spearman(x, y):
    return pearson(ranks(x), ranks(y))


def expected_max(values, k):
    """Unbiased E[max of k draws without replacement] from the n observed values."""
    n = len(values)
    if k > n or k < 1:
        return float("nan")
    v = sorted(values)
    total = math.comb(n, k)
    return sum(v[i] * math.comb(i, k - 1) for i in range(k - 1, n)) / total


def pass_at_k(n, c, k):
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def best_at(curve, evals):
    best = 0.0
    for e, b in curve:
        if e > evals + 1e-9:
            break
        best = b
    return best


def fmt(value, suffix="", digits=2):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}{suffix}"


def pct(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.0f} %"


def ordered(names, order):
    return sorted(names, key=lambda n: (order.index(n) if n in order else len(order), n))


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def depth_of(candidates):
    by_id = {c["id"]: c for c in candidates}
    depth = {}

    def d(cid):
        if cid in depth:
            return depth[cid]
        c = by_id.get(cid)
        parent = c.get("parent") if c else None
        depth[cid] = 0 if parent is None or parent not in by_id else d(parent) + 1
        return depth[cid]

    return {c["id"]: d(c["id"]) for c in candidates}


# ---------------------------------------------------------------------------------------------
# report


def report(out):
    runs = load_runs(out)
    retime_times = {}
    retimes = load_retimes(out, retime_times)
    collect(out, runs, retimes)
    if not runs:
        print("no searches in", out)
        return
    variants = sorted({v for v, _, _ in runs}, key=lambda v: (v != "base", v))
    sections = []

    def cells(variant):
        tasks = ordered({t for v, t, _ in runs if v == variant}, TASK_ORDER)
        strategies = ordered({s for v, _, s in runs if v == variant}, STRATEGY_ORDER)
        return tasks, strategies

    budget = next(iter(runs.values()))[0]["budget"]
    fractions = [(budget / 4, "@ 1/4"), (budget / 2, "@ 1/2"), (budget, "@ full")]

    def bests(docs, evals):
        return [best_at(d["curve"], evals) for d in docs]

    # 1. main grid
    if any(v == "base" for v, _, _ in runs):
        tasks, strategies = cells("base")
        rows = []
        for task in tasks:
            for s in strategies:
                docs = runs.get(("base", task, s))
                if not docs:
                    continue
                full = bests(docs, budget)
                rows.append([task, s] + [fmt(mean(bests(docs, e)), "x") for e, _ in fractions] +
                            [fmt(stdev(full)), fmt(min(full), "x"), len(docs)])
        sections.append(
            f"### Main grid: mean best verified speedup at a quarter, half and all of "
            f"{budget:g} evaluations (offline policy defaults)\n\n" +
            table(["task", "strategy", "best @ 1/4", "@ 1/2", "@ full", "std over seeds",
                   "worst seed", "seeds"], rows))

        # 2. normalised
        rows = []
        for s in strategies:
            norm = {label: [] for _, label in fractions}
            vs_width = {label: [] for _, label in fractions}
            wins = 0
            for task in tasks:
                for e, label in fractions:
                    means = {x: mean(bests(runs[("base", task, x)], e)) for x in strategies
                             if ("base", task, x) in runs}
                    if s not in means:
                        continue
                    top = max(means.values()) or 1.0
                    norm[label].append(means[s] / top)
                    if "best-of-n" in means and means["best-of-n"] > 0:
                        vs_width[label].append(means[s] / means["best-of-n"])
                    if label == "@ full" and means[s] == max(means.values()):
                        wins += 1
            rows.append([s] + [fmt(mean(norm[l])) for _, l in fractions] +
                        [fmt(geomean(vs_width[l]), "x") for _, l in fractions] + [wins])
        sections.append(
            "### Main grid, per strategy over tasks\n\n"
            "normalised: mean over tasks of (strategy's mean best / best strategy's mean best); "
            "× best-of-n: geometric mean over tasks of the ratio to best-of-n.\n\n" +
            table(["strategy"] + [f"normalised {l}" for _, l in fractions] +
                  [f"× best-of-n {l}" for _, l in fractions] + ["tasks won @ full"], rows))

    # 3. search shape (what each strategy actually did with its evaluations)
    rows = []
    for variant in variants:
        tasks, strategies = cells(variant)
        for s in strategies:
            docs = [d for t in tasks for d in runs.get((variant, t, s), [])]
            if not docs:
                continue
            ops = defaultdict(int)
            deep = maxdepth = n = passed = 0
            maxdepths = []
            for d in docs:
                depths = depth_of(d["candidates"])
                maxdepths.append(max(depths.values(), default=0))
                for c in d["candidates"]:
                    n += 1
                    ops[c["op"]] += 1
                    deep += depths[c["id"]] >= 2
                    passed += c["verdict"] == "pass"
            rows.append([variant, s, len(docs), fmt(n / len(docs), digits=1),
                         pct(ops["sample"] / n), pct(ops["refine"] / n),
                         pct((ops["mutate"] + ops["crossover"]) / n), pct(deep / n),
                         fmt(mean(maxdepths), digits=1), pct(passed / n)])
    sections.append(
        "### What the strategies did with their evaluations\n\n"
        "depth: refinement steps from the sample at the root of a candidate's lineage; "
        "depth ≥ 2 means a refinement of a refinement.\n\n" +
        table(["variant", "strategy", "runs", "evals per run", "samples", "refinements",
               "mutations + crossovers", "depth ≥ 2", "mean max depth", "pass"], rows))

    # 4. policy sweep
    sweep_tasks = set()
    for v in variants:
        if v != "base":
            sweep_tasks |= {t for vv, t, _ in runs if vv == v}
    if sweep_tasks:
        rows = []
        for variant in variants:
            _, strategies = cells(variant)
            tasks = ordered(sweep_tasks, TASK_ORDER)
            for s in strategies:
                if not any((variant, t, s) in runs for t in tasks):
                    continue
                ratio = {l: [] for _, l in fractions}
                full = []
                quality = []
                seeds = 0
                pass_n = pass_c = 0
                for t in tasks:
                    docs = runs.get((variant, t, s))
                    width = runs.get((variant, t, "best-of-n"))
                    if not docs:
                        continue
                    seeds += len(docs)
                    full.append(mean(bests(docs, budget)))
                    for d in docs:
                        qs = [c["quality"] for c in d["candidates"]
                              if c["verdict"] == "pass" and c["quality"] is not None]
                        quality.append(max(qs) if qs else 0.0)
                        pass_n += len(d["candidates"])
                        pass_c += sum(c["verdict"] == "pass" for c in d["candidates"])
                    if width:
                        for e, l in fractions:
                            w = mean(bests(width, e))
                            if w > 0:
                                ratio[l].append(mean(bests(docs, e)) / w)
                rows.append([variant, s] + [fmt(geomean(ratio[l]), "x") for _, l in fractions] +
                            [fmt(mean(full), "x"), fmt(mean(quality)),
                             pct(pass_c / pass_n if pass_n else float("nan")), seeds])
        sections.append(
            "### Policy sweep: standing against best-of-n at other offline-policy settings\n\n"
            f"tasks: {', '.join(ordered(sweep_tasks, TASK_ORDER))}. × best-of-n: geometric mean "
            "over tasks of mean best / best-of-n's mean best at the same evaluations. max quality: "
            "mean over runs of the best policy quality estimate among passing candidates "
            "(noise-free; 1 = best knob values).\n\n" +
            table(["variant", "strategy"] + [f"× best-of-n {l}" for _, l in fractions] +
                  ["mean best @ full", "max quality", "pass", "runs"], rows))

    # 5. policy behaviour: what one generation does to a passing parent
    rows = []
    fb_lines = []
    for variant in variants:
        tasks, _ = cells(variant)
        fresh = defaultdict(list)  # task -> [(speedup or 0, quality or None, passed)]
        for t in tasks:
            for d in runs.get((variant, t, "best-of-n"), []):
                for c in d["candidates"]:
                    fresh[t].append((c["speedup"] or 0.0, c["quality"], c["verdict"] == "pass"))
        stats = defaultdict(lambda: defaultdict(list))
        feedback = defaultdict(int)
        for (v, t, s), docs in runs.items():
            if v != variant:
                continue
            for d in docs:
                by_id = {c["id"]: c for c in d["candidates"]}
                for c in d["candidates"]:
                    op = c["op"]
                    if op == "sample":
                        stats[op]["fail"].append(c["verdict"] != "pass")
                        continue
                    p = by_id.get(c["parent"])
                    if p is None or p["verdict"] is None:
                        continue
                    st = stats[op]
                    if p["verdict"] != "pass":
                        st["fixed"].append(c["verdict"] == "pass")
                        continue
                    st["fail"].append(c["verdict"] != "pass")
                    st["faster"].append(c["verdict"] == "pass" and c["speedup"] > p["speedup"])
                    if c["quality"] is not None and p["quality"] is not None:
                        st["pass_q_up"].append(c["verdict"] == "pass" and
                                               c["quality"] > p["quality"] + 1e-12)
                        st["q_up"].append(c["quality"] > p["quality"] + 1e-12)
                        st["q_down"].append(c["quality"] < p["quality"] - 1e-12)
                        st["q_same"].append(abs(c["quality"] - p["quality"]) <= 1e-12)
                    if op == "refine":
                        if c["followed"] is not None:
                            st["followed"].append(c["followed"])
                        if c["feedback"]:
                            feedback[c["feedback"]] += 1
                    if fresh.get(t):
                        samples = fresh[t]
                        st["fresh_faster"].append(
                            mean(ok and sp > p["speedup"] for sp, _, ok in samples))
                        if p["quality"] is not None:
                            st["fresh_q_up"].append(
                                mean(ok and q is not None and q > p["quality"] + 1e-12
                                     for _, q, ok in samples))
        for op in ["sample", "refine", "mutate", "crossover"]:
            st = stats.get(op)
            if not st:
                continue
            n = len(st["faster"]) if op != "sample" else len(st["fail"])

            def share(key):
                return pct(mean(st[key]) if st[key] else float("nan"))

            rows.append([variant, op, n, share("fail"), share("faster"), share("fresh_faster"),
                         share("pass_q_up"), share("fresh_q_up"),
                         f"{share('q_up')} / {share('q_same')} / {share('q_down')}",
                         share("followed"), share("fixed"), len(st["fixed"])])
        total = sum(feedback.values())
        if total:
            fb_lines.append(f"- {variant}: feedback the policy acted on: " + ", ".join(
                f"{k} {100 * v / total:.0f} %" for k, v in sorted(feedback.items())))
    sections.append(
        "### Policy behaviour: one generation from a passing parent, against a fresh sample\n\n"
        "All strategies of a variant pooled. For children of a passing parent: the child fails; "
        "the child passes and is faster than its parent (measured); a fresh sample (best-of-n's "
        "samples of the same task and variant) passes and is faster than that parent; the same "
        "two on the policy's quality estimate (noise-free); the child's knobs against the "
        "parent's, pass or not (quality up / same / down). followed: the refinement moved the "
        "knob its feedback names (otherwise a random move). parent failed → pass: a child of a "
        "failed parent passes. For samples only the failure rate.\n\n" +
        table(["variant", "operation", "children of passing parents", "child fails",
               "child faster", "fresh sample faster", "child passes, higher quality",
               "fresh sample passes, higher quality", "knobs: quality up / same / down",
               "followed feedback", "parent failed → pass", "children of failed parents"],
              rows) +
        ("\n\n" + "\n".join(fb_lines) if fb_lines else ""))

    # 6. re-timing
    def retimed_share(v):
        tops = [(t, d["top_sources"][0]["sha"]) for (vv, t, _), docs in runs.items() if vv == v
                for d in docs if d["top_sources"]]
        return mean(bool(retimes.get(k)) for k in tops) if tops else 0.0

    retimed_variants = [v for v in variants if retimed_share(v) >= 0.5]
    for variant in retimed_variants:
        tasks, strategies = cells(variant)
        rows = []
        per_task_retimed = defaultdict(dict)
        spear = []
        for t in tasks:
            xs, ys = [], []
            for s in strategies:
                for d in runs.get((variant, t, s), []):
                    if not d["top_sources"]:
                        continue
                    r = retimes.get((t, d["top_sources"][0]["sha"]))
                    if r:
                        xs.append(d["top_sources"][0]["speedup"])
                        ys.append(statistics.median(r))
            if len(xs) >= 3:
                spear.append(spearman(xs, ys))
        for s in strategies:
            insearch, again, ratio, topk, cand_ratio, base_ratio = [], [], [], [], [], []
            by_task_again = {}
            for t in tasks:
                vals = []
                for d in runs.get((variant, t, s), []):
                    if not d["top_sources"]:
                        continue
                    first = d["top_sources"][0]
                    r = retimes.get((t, first["sha"]))
                    if not r:
                        continue
                    med = statistics.median(r)
                    insearch.append(first["speedup"])
                    again.append(med)
                    vals.append(med)
                    if med > 0:
                        ratio.append(first["speedup"] / med)
                    c = next(c for c in d["candidates"] if c["id"] == first["id"])
                    again_times = retime_times.get((t, first["sha"]))
                    if again_times and c["ms"] and c["baseline_ms"]:
                        cand_ratio.append(statistics.median(a for a, _ in again_times) / c["ms"])
                        base_ratio.append(c["baseline_ms"] /
                                          statistics.median(b for _, b in again_times))
                    meds = [statistics.median(retimes[(t, x["sha"])])
                            for x in d["top_sources"] if retimes.get((t, x["sha"]))]
                    topk.append(max(meds))
                if vals:
                    by_task_again[t] = mean(vals)
                    per_task_retimed[t][s] = mean(vals)
            if not again:
                continue
            rows.append([s, len(again), fmt(mean(insearch), "x"), fmt(mean(again), "x"),
                         fmt(mean(topk), "x"), fmt(geomean(ratio), "x"),
                         fmt(max(ratio) if ratio else float("nan"), "x"),
                         fmt(geomean(cand_ratio), "x"), fmt(geomean(base_ratio), "x")])
        norm_rows = []
        for s in strategies:
            norm, width = [], []
            for t in tasks:
                m = per_task_retimed.get(t, {})
                if s not in m:
                    continue
                top = max(m.values()) or 1.0
                norm.append(m[s] / top)
                if m.get("best-of-n"):
                    width.append(m[s] / m["best-of-n"])
            if norm:
                norm_rows.append([s, fmt(mean(norm)), fmt(geomean(width), "x")])
        # Noise of one source: spread of its re-timings, and of repeated sources in the searches.
        cvs = [stdev(r) / mean(r) for r in retimes.values() if len(r) > 1 and mean(r) > 0]
        repeats = defaultdict(list)
        for (v, t, s), docs in runs.items():
            if v != variant:
                continue
            for d in docs:
                for c in d["candidates"]:
                    if c["speedup"] is not None:
                        repeats[(t, c["sha"])].append(c["speedup"])
        spreads = sorted(max(r) / min(r) for r in repeats.values() if len(r) > 1 and min(r) > 0)
        noise = [f"- re-timings of one source: median coefficient of variation "
                 f"{fmt(statistics.median(cvs) if cvs else float('nan'))} over {len(cvs)} sources"]
        if spreads:
            noise.append(
                f"- the same source measured more than once during the searches "
                f"({len(spreads)} sources): max/min speedup median "
                f"{fmt(statistics.median(spreads), 'x')}, 90th percentile "
                f"{fmt(spreads[int(0.9 * (len(spreads) - 1))], 'x')}")
        for t in tasks:
            base = sorted(c["baseline_ms"] for (v, tt, s), docs in runs.items()
                          if v == variant and tt == t for d in docs for c in d["candidates"]
                          if c["baseline_ms"])
            again_base = sorted(b for (tt, _), ts in retime_times.items() if tt == t
                                for _, b in ts)
            if base:
                def q(xs, f):
                    return xs[int(f * (len(xs) - 1))]
                noise.append(
                    f"- {t}: baseline (reference) time per evaluation in the searches "
                    f"p10/p50/p90 {q(base, .1):.3g}/{q(base, .5):.3g}/{q(base, .9):.3g} ms "
                    f"(n={len(base)})" + (
                        f"; in the re-timings {q(again_base, .1):.3g}/{q(again_base, .5):.3g}/"
                        f"{q(again_base, .9):.3g} ms" if again_base else ""))
        noise.append(f"- Spearman rank correlation between in-search best and re-timed median, "
                     f"within a task, mean over {len(spear)} tasks: {fmt(mean(spear))}")
        grid = [[t] + [fmt(per_task_retimed[t].get(s), "x") for s in strategies] for t in tasks
                if per_task_retimed.get(t)]
        sections.append(
            f"### Re-timing ({variant}): in-search best against the same source timed again\n\n"
            "in-search: the speedup that made the candidate the run's best; re-timed: median of "
            "its re-timings (a failed repetition counts 0); top-k re-timed: the best re-timed "
            "median among the run's k fastest candidates; winner's curse: geometric mean of "
            "in-search / re-timed, split into its two factors: candidate time (re-timed / "
            "in-search) and baseline time (in-search / re-timed); speedup = baseline / candidate, "
            "each timed in the same evaluation.\n\n" +
            table(["strategy", "runs", "in-search best", "re-timed", "top-k re-timed",
                   "winner's curse", "worst", "from candidate time", "from baseline time"],
                  rows) + "\n\n" +
            table(["strategy", "normalised re-timed best", "× best-of-n re-timed"], norm_rows) +
            "\n\n" + "\n".join(noise) + "\n\nRe-timed mean best per task:\n\n" +
            table(["task"] + strategies, grid))

    # 7. width: coverage and best-of-k for independent samples
    if any(s == "best-of-n" for v, _, s in runs if v == "base"):
        tasks, _ = cells("base")
        ks = []
        k = 1
        pooled_n = max((sum(len(d["candidates"]) for d in runs.get(("base", t, "best-of-n"), []))
                        for t in tasks), default=0)
        while k <= pooled_n:
            ks.append(k)
            k *= 2
        if pooled_n and pooled_n not in ks:
            ks.append(pooled_n)
        rows = []
        pass_rows = []
        for t in tasks:
            docs = runs.get(("base", t, "best-of-n"), [])
            if not docs:
                continue
            values = [c["speedup"] or 0.0 for d in docs for c in d["candidates"]]
            quals = [c["quality"] if c["verdict"] == "pass" and c["quality"] is not None else 0.0
                     for d in docs for c in d["candidates"]]
            c_pass = sum(v > 0 for v in values)
            rows.append([t, len(values)] + [fmt(expected_max(values, k), "x") for k in ks])
            pass_rows.append([t] + [pct(pass_at_k(len(values), c_pass, k)) if k <= len(values)
                                    else "–" for k in ks[:6]] +
                             [fmt(expected_max(quals, k)) for k in ks])
            any_pass = mean(any(c["verdict"] == "pass" for c in d["candidates"][:int(budget)])
                            for d in docs)
            pass_rows[-1].append(pct(any_pass))
        sections.append(
            "### Width: best-of-k of independent samples (best-of-n runs, all seeds pooled)\n\n"
            "E[best of k]: unbiased estimate of the best verified speedup among k samples "
            "(failures count 0), from every best-of-n sample of the task; k beyond one run's "
            "budget uses the samples of all seeds. Diminishing gains per doubling = plateau.\n\n" +
            table(["task", "samples"] + [f"k={k}" for k in ks], rows) + "\n\n"
            "pass@k (unbiased) and E[best quality of k] (the policy's noise-free estimate); "
            "runs with a pass: fraction of runs with any passing candidate.\n\n" +
            table(["task"] + [f"pass@{k}" for k in ks[:6]] + [f"quality k={k}" for k in ks] +
                  ["runs with a pass"], pass_rows))

    # 8. how well the policy's quality predicts the measured speedup
    rows = []
    for t in ordered({t for v, t, _ in runs if v == "base"}, TASK_ORDER):
        q, sp = [], []
        for (v, tt, s), docs in runs.items():
            if v != "base" or tt != t:
                continue
            for d in docs:
                for c in d["candidates"]:
                    if c["speedup"] is not None and c["quality"] is not None:
                        q.append(c["quality"])
                        sp.append(c["speedup"])
        rows.append([t, len(q), fmt(spearman(q, sp)), fmt(max(sp) if sp else float("nan"), "x"),
                     fmt(statistics.median(sp) if sp else float("nan"), "x")])
    sections.append(
        "### Policy quality estimate against measured speedup (passing candidates, base)\n\n" +
        table(["task", "candidates", "Spearman(quality, speedup)", "max speedup",
               "median speedup"], rows))

    # 9. which knob values are fast on this machine, against the policy's quality of them
    rows = []
    for t in ordered({t for v, t, _ in runs if v == "base"}, TASK_ORDER):
        by_knob = defaultdict(lambda: defaultdict(list))
        for (v, tt, s), docs in runs.items():
            if v != "base" or tt != t:
                continue
            for d in docs:
                for c in d["candidates"]:
                    if c["speedup"] is None or not c["knobs"]:
                        continue
                    for pair in c["knobs"].split(","):
                        name, _, value = pair.partition("=")
                        by_knob[name][value].append(c["speedup"])
        for name in sorted(by_knob):
            values = sorted(by_knob[name].items(), key=lambda kv: -statistics.median(kv[1]))
            rows.append([t, name, ", ".join(f"{value} {statistics.median(sp):.2f}x ({len(sp)})"
                                            for value, sp in values)])
    sections.append(
        "### Knob values by median measured speedup (passing candidates, base), fastest first\n\n"
        "Compare with the `quality` the variant space gives each value "
        "(tasks/<task>/variants/cpu/knobs.json): the policy's prior, its feedback moves and "
        "its idea of a better variant follow those, not the timings.\n\n" +
        table(["task", "knob", "value median speedup (candidates)"], rows))

    setup = next(iter(runs.values()))[0]
    print(f"Budget {budget:g} evaluations per search; {setup['sandboxes']} sandbox(es) per "
          f"search; cores per search: {setup['cores_per_search'] or 'unpinned'}; "
          f"{sum(len(d) for d in runs.values())} searches.\n")
    print("\n\n".join(sections))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compact")
    c.add_argument("workdir")
    c.add_argument("--out", required=True)
    c.add_argument("--variant", required=True)
    c.add_argument("--task", required=True)
    c.add_argument("--strategy", required=True)
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--budget", type=float, required=True)
    c.add_argument("--wall", type=float, default=0.0)
    c.add_argument("--top", type=int, default=1)
    c.add_argument("--params", default="")
    c.add_argument("--cores", type=int, default=0)
    c.add_argument("--sandboxes", type=int, default=1)
    r = sub.add_parser("retime-plan")
    r.add_argument("out")
    r.add_argument("--variants", default="base")
    r.add_argument("--repeats", type=int, default=3)
    r.add_argument("--count", action="store_true")
    for name in ["collect", "report"]:
        sub.add_parser(name).add_argument("out")
    args = parser.parse_args()
    if args.command == "compact":
        compact(args)
    elif args.command == "retime-plan":
        retime_plan(args)
    elif args.command == "collect":
        collect(args.out)
    else:
        report(args.out)


if __name__ == "__main__":
    main()
