#!/usr/bin/env python3
"""Where `plumb check`'s wall time goes around its framework probe, from the kernel's own clock.

Runs each given plumb command RUNS times, the commands alternating round by round, under
`perf record` of four scheduler tracepoints (sched_process_exec, sched_process_fork,
sched_process_exit, and sched_switch away from plumb or python tasks; needs root or
perf_event_paranoid <= -1). A process ends at its last switch away from the CPU (it is then a
zombie its parent can reap), not at sched_process_exit: on the 6.18 kernel of the machine
measured, that tracepoint fires before the process's memory is torn down (perf samples of
__mmput under do_exit follow it), 1 ms of a Python interpreter's end that its parent still waits
for. For each run it reads:

  exec -> probe exec   from plumb's execve to its probe interpreter's execve
  probe                the interpreter's execve to its end (its whole life as a process)
  probe end -> exit    the interpreter's end to plumb's end (reaping, rules, report, process end)
  total                plumb's execve to its end
  total - probe        what plumb adds to its probe: the target is at most 5 ms

and prints the median of each per command (the first round is a warm-up and left out).

Usage:
  bench/check_timeline.py --plumb build/release/plumb [--runs 25] [--other OTHER_PLUMB]
                          [-- EXTRA CHECK ARGS]
  e.g. bench/check_timeline.py --plumb build/release/plumb --other /tmp/old/plumb -- --format json --no-history

With --separate-db each binary records into its own history database in a temporary folder
(`--db`), so that neither finds the other's write-ahead log.
Both binaries must be named `plumb` (the tracepoints carry the command name, not the path).
Runs with no probe interpreter (a check that skipped it) are left out and counted.
"""
import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plumb", default="build/release/plumb")
    ap.add_argument("--other", help="a second plumb binary, alternated with the first")
    ap.add_argument("--runs", type=int, default=25)
    ap.add_argument("--separate-db", action="store_true", help="a history database per binary (--db in a temporary folder)")
    ap.add_argument("extra", nargs="*", help="arguments after `plumb check` (after --)")
    a = ap.parse_args()
    if shutil.which("perf") is None:
        sys.exit("check_timeline: needs perf (Debian: linux-perf)")
    bins = [a.plumb] + ([a.other] if a.other else [])
    for b in bins:
        if os.path.basename(b) != "plumb":
            sys.exit(f"check_timeline: {b}: the binary must be named plumb (copy it to DIR/plumb)")
    dbdir = tempfile.mkdtemp(prefix="plumb-timeline-") if a.separate_db else None
    cmds = [[b, "check"] + a.extra + (["--db", os.path.join(dbdir, f"{k}.db")] if dbdir else []) for k, b in enumerate(bins)]
    rounds = a.runs + 1
    body = "; ".join(" ".join(shlex.quote(w) for w in c) + " >/dev/null 2>&1" for c in cmds)
    driver = f"for i in $(seq 1 {rounds}); do {body}; done"
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        rec = subprocess.run(["perf", "record", "-q", "-a", "-o", data, "-e", "sched:sched_process_exec",
                              "-e", "sched:sched_process_fork", "-e", "sched:sched_process_exit",
                              "-e", "sched:sched_switch", "--filter", 'prev_comm == "plumb" || prev_comm ~ "python*"',
                              "--", "sh", "-c", driver], capture_output=True, text=True, check=False)
        if rec.returncode != 0:
            sys.exit("check_timeline: perf record failed: " + (rec.stderr.strip().splitlines() or ["?"])[-1])
        out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,time,event"],
                             capture_output=True, text=True, check=False).stdout
    if dbdir:
        shutil.rmtree(dbdir, ignore_errors=True)
    runs, cur = [], None
    for line in out.splitlines():
        p = line.split()
        if len(p) < 4 or "/" not in p[1]:
            continue
        comm, (pid, tid), t, ev = p[0], p[1].split("/"), float(p[2].rstrip(":")) * 1000, p[3]
        if comm == "plumb" and "exec" in ev:
            cur = {"t0": t, "pid": pid}
            runs.append(cur)
        elif cur is None:
            continue
        elif comm.startswith("python") and "exec" in ev and "py" not in cur:
            cur["py"], cur["pypid"] = t, pid
        elif "exit" in ev and pid == tid == cur.get("pypid"):
            cur.setdefault("pyend", t)
        elif "exit" in ev and pid == tid == cur["pid"]:
            cur.setdefault("end", t)
        elif "switch" in ev and pid == cur.get("pypid") and "pyend" in cur:
            cur["pyend"] = t  # the interpreter's last switch away: it is a zombie now
        elif "switch" in ev and pid == cur["pid"] and "end" in cur:
            cur["end"] = t
    if len(runs) != rounds * len(cmds):
        sys.exit(f"check_timeline: saw {len(runs)} plumb starts, expected {rounds * len(cmds)}")
    print(f"machine: {os.cpu_count()} CPUs, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{a.runs} runs each (alternating), medians in ms")
    for k, c in enumerate(cmds):
        rows = [r for i, r in enumerate(runs) if i % len(cmds) == k][1:]
        done = [r for r in rows if "end" in r and "pyend" in r]
        med = lambda f: statistics.median(f(r) for r in done)  # noqa: E731
        print(" ".join(c))
        if not done:
            print("  no run started a probe interpreter")
            continue
        print(f"  exec -> probe exec {med(lambda r: r['py'] - r['t0']):6.1f}   probe {med(lambda r: r['pyend'] - r['py']):6.1f}"
              f"   probe end -> exit {med(lambda r: r['end'] - r['pyend']):6.1f}   total {med(lambda r: r['end'] - r['t0']):6.1f}"
              f"   total - probe {med(lambda r: (r['end'] - r['t0']) - (r['pyend'] - r['py'])):6.1f}"
              + (f"   ({len(rows) - len(done)} runs without a probe left out)" if len(done) < len(rows) else ""))


if __name__ == "__main__":
    main()
