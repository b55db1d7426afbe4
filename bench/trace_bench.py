#!/usr/bin/env python3
"""plumb trace throughput and peak memory against Python's json module, on one large trace.

    bench/trace_bench.py --plumb build/release/plumb [--seed TRACE] [--size-mb 1024] [--runs 3]

Builds a large Kineto trace by repeating the events of a real one (each copy shifted in time by
the --seed trace's span and in correlation ids by its largest id, so ProfilerSteps stay distinct and
kernels match the runtime call that launched them), then measures in the same run, with
/usr/bin/time -v (wall seconds, max RSS):
  1. plumb trace BIG -f json                     (one core: plumb reads on one thread)
  2. python3 -c 'import json; json.load(open(BIG))'
  3. bench/trace_reference.py BIG                (json.load + the same step metrics in Python)
and prints MB/s, peak RSS and the ratios against the targets (>= 500 MB/s, RSS < half
the file, >= 20x faster than json.load). The big file is deleted afterwards unless --keep.
"""
import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SEED = os.path.join(HERE, "..", "tests", "fixtures", "traces", "corpus",
                            "hta-a100-sxm4-80gb-train-rank0-nccl.json.gz")


def load(path):
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def build(seed, out, size_mb):
    doc = load(seed)
    events = doc["traceEvents"]
    xs = [e for e in events if "ts" in e]
    t0 = min(e["ts"] for e in xs)
    span = max(e["ts"] + e.get("dur", 0) for e in xs) - t0 + 1000
    header = {k: v for k, v in doc.items() if k != "traceEvents"}
    target = size_mb * 1_000_000
    step_re = re.compile(r"^ProfilerStep#(\d+)$")
    corr_span = 1 + max([e["args"]["correlation"] for e in events
                         if isinstance(e.get("args"), dict) and isinstance(e["args"].get("correlation"), int)] or [0])
    nsteps = 1 + max([int(step_re.match(e["name"]).group(1)) for e in events
                      if isinstance(e.get("name"), str) and step_re.match(e["name"])] or [0])
    with open(out, "w") as f:
        f.write('{"schemaVersion": 1, "traceEvents": [\n')
        written, copy, first = 0, 0, True
        while written < target:
            parts = []
            for e in events:
                if e.get("ph") == "M" and copy > 0:
                    continue
                c = dict(e)
                if "ts" in c:
                    c["ts"] = c["ts"] + copy * span
                args = c.get("args")
                if copy > 0 and isinstance(args, dict) and isinstance(args.get("correlation"), int):
                    # each copy its own correlation ids, as one long real trace has
                    c["args"] = dict(args, correlation=args["correlation"] + copy * corr_span)
                m = step_re.match(c.get("name", "")) if isinstance(c.get("name"), str) else None
                if m:
                    c["name"] = "ProfilerStep#%d" % (int(m.group(1)) + copy * nsteps)
                parts.append(json.dumps(c))
            chunk = (",\n" if not first else "") + ",\n".join(parts)
            f.write(chunk)
            written += len(chunk)
            first = False
            copy += 1
        f.write("\n],\n")
        f.write(",\n".join('"%s": %s' % (k, json.dumps(v)) for k, v in header.items()))
        f.write("\n}\n")
    return os.path.getsize(out), copy


def timed(cmd):
    """Wall seconds, CPU seconds (user + system) and max RSS (MB) of one command (/usr/bin/time -v)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    cpu = float(re.search(r"User time \(seconds\): (\S+)", p.stderr).group(1)) + \
        float(re.search(r"System time \(seconds\): (\S+)", p.stderr).group(1))
    return secs, cpu, rss_kb / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plumb", required=True)
    ap.add_argument("--seed", default=DEFAULT_SEED)
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline-runs", type=int, default=0, help="runs of the Python baselines (default: --runs)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--skip-reference", action="store_true", help="do not time trace_reference.py")
    a = ap.parse_args()

    big = os.path.join(a.dir, "plumb-bench-trace-%d.json" % os.getpid())
    size, copies = build(a.seed, big, a.size_mb)
    mb = size / 1e6
    print("trace: %s (%.1f MB, %d copies of %s)" % (big, mb, copies, os.path.basename(a.seed)))
    try:
        cases = [("plumb trace", [a.plumb, "trace", big, "-f", "json"]),
                 ("python json.load", [a.python, "-c", "import json,sys; json.load(open(sys.argv[1]))", big])]
        if not a.skip_reference:
            cases.append(("python reference metrics", [a.python, os.path.join(HERE, "trace_reference.py"), big]))
        res = {}
        # Throughput is judged on CPU time (user + system): on a shared machine wall time mostly
        # measures the neighbours. Both are printed.
        for name, cmd in cases:
            n = a.runs if name == "plumb trace" or a.baseline_runs <= 0 else a.baseline_runs
            runs = [timed(cmd) for _ in range(n)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rss = statistics.median(r[2] for r in runs)
            res[name] = (cpu, rss, wall)
            print("%-26s cpu %7.2f s (min %.2f, max %.2f) = %7.1f MB/s   wall %7.2f s   peak RSS %7.1f MB" % (
                name, cpu, min(r[1] for r in runs), max(r[1] for r in runs), mb / cpu, wall, rss))
        pc, pr, _ = res["plumb trace"]
        jc, jr, _ = res["python json.load"]
        print()
        print("plumb throughput (cpu)    %7.1f MB/s   target >= 500 MB/s      %s" % (mb / pc, "ok" if mb / pc >= 500 else "MISSED"))
        print("plumb peak RSS / file     %7.3f        target < 0.5            %s" % (pr / mb, "ok" if pr / mb < 0.5 else "MISSED"))
        print("speed-up vs json.load     %7.1f x      target >= 20 x          %s" % (jc / pc, "ok" if jc / pc >= 20 else "MISSED"))
        print("RSS ratio json.load/plumb %7.1f x" % (jr / pr))
        if "python reference metrics" in res:
            rc, rr, _ = res["python reference metrics"]
            print("speed-up vs reference     %7.1f x      (json.load + the same metrics in Python)" % (rc / pc))
    finally:
        if not a.keep:
            os.unlink(big)
    return 0


if __name__ == "__main__":
    sys.exit(main())
