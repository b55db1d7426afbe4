#!/usr/bin/env python3
"""Where a `plumb trace` run's wall time goes, phase by phase, over several runs.

    bench/trace_phases.py --plumb build/release/plumb [--threads 2] [--runs 7] TRACE...

Runs `plumb trace TRACE -f json --threads N --timings` RUNS times per trace (the trace read through
once first, so that it comes from the page cache) and reads the --timings table plumb prints on
stderr (docs/trace.md). Per run: when the parts were cut, when each reading thread was done with
its last part (a thread that finished early takes over the rest of another part, so a thread may
read several), the gap between the first and the last thread to finish, the merge, the analysis,
the report (the command's end after the analysis: rules, rendering, writing), the command's total
and the CPU time of all parts together, all in milliseconds from the start of the command. Prints
the median and the range of each over the runs (docs/performance-trace.md).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

from trace_ab import read_through  # the page-cache read-through of bench/trace_ab.py

ROW = re.compile(r"^\s*(?P<file>\S.*?)\s{2,}(?P<step>\S.*?)\s{2,}(?P<start>[-\d.]+)\s+(?P<dur>[-\d.]+)\s+"
                 r"(?P<cpu>[-\d.]+|-)\s+(?P<thread>\d+|-)\s+(?P<mb>[-\d.]+|-)\s*$")
TOTAL = re.compile(r"from the start of the command to here .*: ([\d.]+) ms")


def one_run(plumb, trace, threads):
    p = subprocess.run([plumb, "trace", trace, "-f", "json", "--lang", "en", "--threads", str(threads), "--timings"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if p.returncode not in (0, 1):
        raise SystemExit("plumb trace failed (%d): %s" % (p.returncode, p.stderr.strip()))
    phases = {"cut": None, "merge": 0.0, "analysis": 0.0}
    thread_end, cpu, total, analysis_end = {}, 0.0, None, None
    for line in p.stderr.splitlines():
        m = TOTAL.search(line)
        if m:
            total = float(m.group(1))
            continue
        m = ROW.match(line)
        if not m or m.group("file") == "file":
            continue
        step, start, dur = m.group("step"), float(m.group("start")), float(m.group("dur"))
        if step.startswith("cut into"):
            phases["cut"] = start + dur
        elif step.startswith("part ") or step == "read":
            tid = m.group("thread")
            thread_end[tid] = max(thread_end.get(tid, 0.0), start + dur)
            cpu += float(m.group("cpu"))
        elif step == "merge":
            phases["merge"] = dur
        elif step == "analysis":
            phases["analysis"] = dur
            analysis_end = start + dur
    if total is None or analysis_end is None or not thread_end:
        raise SystemExit("no --timings table on stderr:\n" + p.stderr)
    ends = sorted(thread_end.values())
    return {
        "cut": phases["cut"] if phases["cut"] is not None else 0.0,
        "first thread done": ends[0],
        "last thread done": ends[-1],
        "threads' gap": ends[-1] - ends[0],
        "merge": phases["merge"],
        "analysis": phases["analysis"],
        "report": total - analysis_end,
        "total": total,
        "parts' CPU": cpu,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plumb", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    if a.runs < 1 or a.threads < 1:
        raise SystemExit("--runs and --threads must be 1 or more")
    print("%s, %d CPUs, load average %s, %s --threads %d, %d runs (ms from the start of the command)" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count() or 0,
        " ".join("%.2f" % x for x in os.getloadavg()), a.plumb, a.threads, a.runs), flush=True)
    for trace in a.traces:
        read_through(trace)
        runs = [one_run(a.plumb, trace, a.threads) for _ in range(a.runs)]
        print("== %s" % os.path.basename(trace))
        for key in runs[0]:
            values = [r[key] for r in runs]
            print("  %-18s median %7.1f   range %7.1f - %7.1f" % (key, statistics.median(values), min(values), max(values)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
