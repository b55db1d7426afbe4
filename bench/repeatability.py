#!/usr/bin/env python3
"""How well a plumb benchmark repeats: the spread of its figures over N separate runs.

Runs `plumb bench NAME --format json --no-history [ARGS]` RUNS times, one process after the other,
and prints for every metric:

  - median:  the median of the runs' medians (each run's median over its own samples);
  - spread:  (largest - smallest) / median of the runs' medians, in %: the figure a baseline
             comparison moves by between two runs on an unchanged machine;
  - w/o 1st: the same without the first run (a machine that was not settled yet);
  - best:    the same two figures for each run's best sample (`max` for higher-is-better metrics,
             `min` otherwise: STREAM's "best rate" convention);
  - cv:      the median and largest within-run coefficient of variation (what `l2.bench.noise`
             judges; it cannot see a drift between runs).

Usage:
  bench/repeatability.py [--plumb build/release/plumb] [--runs 10] [--json FILE] NAME [-- ARGS...]
  e.g. bench/repeatability.py membw
       bench/repeatability.py storage -- /var/tmp/pst
Exit 1 when a run fails (its error is printed); the figures of the other runs are still shown.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def metrics_of(doc):
    """The metric list of one `plumb bench --format json` document (searched, not assumed)."""
    if isinstance(doc, dict):
        m = doc.get("metrics")
        if isinstance(m, list) and m and isinstance(m[0], dict) and "median" in m[0]:
            return m
        for v in doc.values():
            found = metrics_of(v)
            if found:
                return found
    elif isinstance(doc, list):
        for v in doc:
            found = metrics_of(v)
            if found:
                return found
    return []


def spread_pct(values):
    if len(values) < 2:
        return 0.0
    mid = statistics.median(values)
    return 100.0 * (max(values) - min(values)) / mid if mid else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plumb", default="build/release/plumb")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--json", help="also write every run's metrics here")
    ap.add_argument("name", help="the benchmark (membw, storage, ...)")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="after --: more arguments for the benchmark")
    a = ap.parse_args()
    extra = a.args[1:] if a.args[:1] == ["--"] else a.args
    if a.runs < 2:
        sys.exit("repeatability: --runs must be at least 2")

    per_metric = {}  # name -> {"unit", "hib", "median": [], "best": [], "cv": []}
    failed = 0
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for i in range(a.runs):
        cmd = [a.plumb, "bench", a.name, "--format", "json", "--no-history", *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        try:
            metrics = metrics_of(json.loads(p.stdout)) if p.stdout.strip() else []
        except json.JSONDecodeError:
            metrics = []
        if not metrics:
            failed += 1
            err = (p.stderr.strip().splitlines() or ["no metrics in the output"])[-1]
            print(f"run {i + 1}: exit {p.returncode}: {err}", file=sys.stderr)
            continue
        for m in metrics:
            if not m.get("samples"):
                continue
            d = per_metric.setdefault(m["name"], {"unit": m.get("unit", ""), "hib": m.get("higher_is_better", True),
                                                  "median": [], "best": [], "cv": []})
            d["median"].append(float(m["median"]))
            d["best"].append(float(m["max"] if d["hib"] else m["min"]))
            d["cv"].append(float(m.get("cv_pct", 0.0)))
        print(f"run {i + 1}/{a.runs} done", file=sys.stderr)

    load = open("/proc/loadavg").read().split()[:3] if sys.platform.startswith("linux") else []
    print(f"plumb bench {a.name} {' '.join(extra)}: {a.runs} runs from {started}"
          + (f", load average at the end {' '.join(load)}" if load else ""))
    header = ("metric", "unit", "median", "spread", "w/o 1st", "best", "spread", "w/o 1st", "cv med", "cv max")
    rows = []
    for name, d in per_metric.items():
        med, best = d["median"], d["best"]
        rows.append((name, d["unit"], f"{statistics.median(med):.4g}", f"{spread_pct(med):.1f} %",
                     f"{spread_pct(med[1:]):.1f} %", f"{statistics.median(best):.4g}", f"{spread_pct(best):.1f} %",
                     f"{spread_pct(best[1:]):.1f} %", f"{statistics.median(d['cv']):.1f} %", f"{max(d['cv']):.1f} %"))
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(str(c).rjust(w) if j > 1 else str(c).ljust(w) for j, (c, w) in enumerate(zip(r, widths))))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"command": a.name, "args": extra, "started": started, "metrics": per_metric}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
