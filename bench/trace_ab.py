#!/usr/bin/env python3
"""Two or more plumb builds on the same traces, alternated, for a change to the trace reader.

    bench/trace_ab.py --plumb OLD --plumb NEW [--runs 7] [--threads 2] TRACE...

A VM's speed drifts by the minute (docs/performance-trace.md), so builds measured one after the
other compare the hours, not the builds. Here every round runs, for each build in turn,
`plumb trace TRACE -f json` with --threads 1, then --threads N, then --threads 1 again, and the
speed-up of the round is the mean of the two one-thread walls over the N-thread wall: a drift
within a round moves both sides alike. Prints, per trace and build, the medians of the walls and
CPU times (user + system, from wait4) and of the rounds' speed-ups. The traces are read through
once first so that they come from the page cache (bench/trace_bench.py builds large ones).
--before says what comes just before every run, a comma-separated list measured side by side in
every round: nothing (runs back to back), read-through (the trace read through, as trace_bench.py
does), sleep (100 ms idle), busy (100 ms of one CPU spinning).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def timed(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit("command failed (%d): %s" % (code, " ".join(cmd)))
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime


def read_through(path):
    with open(path, "rb", buffering=0) as f:
        buf = bytearray(4 << 20)
        while f.readinto(buf):
            pass


def busy():
    t0 = time.monotonic()
    while time.monotonic() - t0 < 0.1:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plumb", action="append", required=True, help="a plumb binary (give two or more)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--before", default="nothing", help="comma-separated: nothing, read-through, sleep, busy")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    print("%s, %d CPUs, load average %s" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count() or 0,
                                            " ".join("%.2f" % x for x in os.getloadavg())), flush=True)
    ways = a.before.split(",")
    for w in ways:
        if w not in ("nothing", "read-through", "sleep", "busy"):
            raise SystemExit("--before: unknown %r" % w)
    for trace in a.traces:
        read_through(trace)
        rounds = {(b, w): [] for b in a.plumb for w in ways}
        for _ in range(a.runs):
            for b in a.plumb:
                for way in ways:
                    cmd = [b, "trace", trace, "-f", "json", "--threads"]
                    runs = []
                    for t in ("1", str(a.threads), "1"):
                        if way == "read-through":
                            read_through(trace)
                        elif way == "sleep":
                            time.sleep(0.1)
                        elif way == "busy":
                            busy()
                        runs.append(timed(cmd + [t]))
                    (w1, c1), (wn, cn), (w1b, _) = runs
                    rounds[(b, way)].append((w1, wn, w1b, c1, cn))
        for (b, way), r in rounds.items():
            label = b + ("" if len(ways) == 1 else " (before each run: %s)" % way)
            med = lambda i: statistics.median(x[i] for x in r) * 1e3
            speedup = statistics.median((x[0] + x[2]) / 2 / x[1] for x in r)
            print("%s  %s  1 thread: wall %.0f ms, cpu %.0f ms   %d threads: wall %.0f ms (runs %s), cpu %.0f ms   speed-up %.3f x" % (
                os.path.basename(trace), label, med(0), med(3), a.threads, med(1), " ".join("%.0f" % (x[1] * 1e3) for x in r),
                med(4), speedup), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
