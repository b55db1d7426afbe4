#!/usr/bin/env python3
"""Two plumb builds on the same command, alternated run by run: wall time, CPU time (user +
system) and minor page faults of each run from wait4(2), medians per build. A drift of the
machine during the series moves both builds alike, which separate series would not.

  python3 bench/check_ab.py --old OLD/plumb --new NEW/plumb [--runs 30] [--rounds 3] [-- ARGS...]

ARGS default to `check --no-history --skip collect.python --format json`. Output goes to
/dev/null; a run that fails is reported and stops the series.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def one_run(binary, args):
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen([binary] + args, stdout=null, stderr=null)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: findings that warn or fail
        sys.exit("%s %s: exit %d" % (binary, " ".join(args), code))
    return wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_minflt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--runs", type=int, default=30, help="runs of each build per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, each with its own medians")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    args = a.args or ["check", "--no-history", "--skip", "collect.python", "--format", "json"]
    if a.runs < 1 or a.rounds < 1:
        sys.exit("--runs and --rounds must be at least 1")
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print("%s UTC, %d CPUs, load %s; %s, %d runs of each build per round, alternated"
          % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), os.cpu_count(), load, " ".join(args), a.runs))
    for b in (a.old, a.new):
        one_run(b, args)  # warm-up: page cache, the dynamic loader's cache
    for r in range(a.rounds):
        got = {a.old: [], a.new: []}
        for _ in range(a.runs):
            for b in (a.old, a.new):
                got[b].append(one_run(b, args))
        for name, b in (("old", a.old), ("new", a.new)):
            wall, cpu, flt = (statistics.median(x[i] for x in got[b]) for i in range(3))
            print("round %d %s  wall %6.1f ms  cpu %6.1f ms  page faults %5.0f  (%s)" % (r + 1, name, wall, cpu, flt, b))


if __name__ == "__main__":
    main()
