#!/usr/bin/env python3
"""plumb trace throughput, thread speed-up and peak memory against Python's json module.

    bench/trace_bench.py --plumb build/release/plumb [--seeds kernel,cpu,nccl] [--size-mb 300]
                         [--runs 5] [--threads 2] [--check] [--gzip] [--ceiling]

For each seed trace (a real Kineto trace; the defaults: a kernel-heavy ResNet-50 run, a
CPU-operator-heavy MTIA inference run and an 8x A100 NCCL training rank, all in
tests/fixtures/traces/corpus) builds a large trace by repeating its events (each copy shifted in
time by the source trace's span and in correlation ids by its largest id, so ProfilerSteps stay distinct
and kernels match the runtime call that launched them), then measures with wait4's resource use
(wall seconds, user + system CPU seconds, max RSS), medians of --runs, the file read through into
the page cache before each run:
  1. plumb trace BIG -f json --threads 1         (CPU MB/s on one thread: the per-core figure)
  2. plumb trace BIG -f json --threads N         (wall speed-up over 1.; runs of 1. and 2. alternate)
  3. python3 -c 'import json; json.load(open(BIG))'   (--baseline-runs; 0 skips it)
  4. with --check: bench/trace_reference.py --check on plumb's JSON (worst difference, pp)
  5. with --gzip: plumb trace BIG.gz --threads 1 (MB/s of uncompressed JSON, inflate included)
  6. with --ceiling: N one-thread runs at once, interleaved with 1. and 2.: N x the one-thread wall
     over theirs is the speed-up N independent reads get on this machine (what the CPUs, memory
     and hypervisor allow), the ceiling for 2.
and prints one table row per seed. The big files are deleted afterwards unless --keep.
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
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "tests", "fixtures", "traces", "corpus")
SEEDS = {
    "kernel": "kineto-resnet50-num-workers-4.json.gz",
    "cpu": "hta-mtia-inference-rank0.json.gz",
    "nccl": "hta-a100-sxm4-80gb-train-rank0-nccl.json.gz",
}


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
    """Wall seconds, CPU seconds (user + system) and max RSS (MB) of one command. CPU time comes
    from wait4 (microseconds; /usr/bin/time prints hundredths, 3 % of a 0.3 s run); the command
    runs under /usr/bin/time -f %M for its peak RSS, since a child of this Python process would
    report this process's RSS as its own (Linux keeps the peak across fork and exec). wait4's
    figure is /usr/bin/time's with its child's, about a millisecond more than the command's own."""
    t0 = time.monotonic()
    with subprocess.Popen(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as p:
        err = p.stderr.read().decode(errors="replace")
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    secs = time.monotonic() - t0
    if p.returncode not in (0, 1):
        raise SystemExit("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err[-2000:]))
    rss_kb = int(err.strip().splitlines()[-1])
    return secs, ru.ru_utime + ru.ru_stime, rss_kb / 1024.0


def warm(path):
    """Reads the file through so that it is in the page cache when a timed run starts. Written
    once and read within seconds, it should be; but a host may take back a guest's cold page cache
    (here a DAMON kdamond pages out physical memory unused for a few seconds:
    /sys/kernel/mm/damon/admin/kdamonds), and a run that reads part of its trace from disk
    measures the disk."""
    buf = bytearray(4 << 20)
    with open(path, "rb", buffering=0) as f:
        while f.readinto(buf):
            pass


def summary(runs):
    return {"wall": statistics.median(r[0] for r in runs), "cpu": statistics.median(r[1] for r in runs),
            "cpu_min": min(r[1] for r in runs), "cpu_max": max(r[1] for r in runs),
            "rss": statistics.median(r[2] for r in runs), "walls": [r[0] for r in runs]}


def median_runs(cmd, n, path):
    runs = []
    for _ in range(n):
        warm(path)
        runs.append(timed(cmd))
    return summary(runs)


def at_once(cmd, n):
    """Wall seconds until the last of n copies of cmd, started together, has ended."""
    t0 = time.monotonic()
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(n)]
    for p in procs:
        if p.wait() not in (0, 1):
            raise SystemExit("command failed (%d): %s" % (p.returncode, " ".join(cmd)))
    return time.monotonic() - t0


def paired_runs(cmds, n, path, together=None):
    """n runs of each command, interleaved (a b a b ...), the file warmed before each: a drift of
    the machine during the series then moves every command alike. With together = (cmd, k), each
    round also times k copies of cmd at once (at_once); their walls come last."""
    runs = [[] for _ in cmds]
    walls = []
    for _ in range(n):
        for i, cmd in enumerate(cmds):
            warm(path)
            runs[i].append(timed(cmd))
        if together:
            warm(path)
            walls.append(at_once(*together))
    return [summary(r) for r in runs] + ([walls] if together else [])


def reference_check(a, big):
    out = big + ".plumb.json"
    with open(out, "w") as f:
        subprocess.run([a.plumb, "trace", big, "-f", "json", "--threads", str(a.threads)], stdout=f, check=False)
    p = subprocess.run([a.python, os.path.join(HERE, "trace_reference.py"), "--check", out, big],
                       stdout=subprocess.PIPE, text=True)
    os.unlink(out)
    m = re.search(r"worst difference: (\S+) percentage points", p.stdout)
    return (float(m.group(1)) if m else float("nan")), p.returncode


def bench_seed(a, label, seed):
    big = os.path.join(a.dir, "plumb-bench-trace-%d-%s.json" % (os.getpid(), label))
    size, copies = build(seed, big, a.size_mb)
    # The kernel writes a new file back to disk some 30 s after it was written
    # (vm.dirty_expire_centisecs), in the middle of the timed runs: done here first instead.
    os.sync()
    mb = size / 1e6
    print("== %s: %s (%.1f MB, %d copies of %s)" % (label, big, mb, copies, os.path.basename(seed)), flush=True)
    row = {"label": label, "seed": os.path.basename(seed), "mb": mb}
    try:
        one_cmd = [a.plumb, "trace", big, "-f", "json", "--threads", "1"]
        res = paired_runs([one_cmd, [a.plumb, "trace", big, "-f", "json", "--threads", str(a.threads)]], a.runs, big,
                          (one_cmd, a.threads) if a.ceiling else None)
        one, many = res[0], res[1]
        row.update(one=one, many=many)
        print("plumb --threads 1   cpu %6.3f s (min %.3f, max %.3f) = %7.1f MB/s   wall %6.3f s   peak RSS %6.1f MB (%.3f x file)" % (
            one["cpu"], one["cpu_min"], one["cpu_max"], mb / one["cpu"], one["wall"], one["rss"], one["rss"] / mb))
        print("plumb --threads %-3d cpu %6.3f s   wall %6.3f s (runs %s)   speed-up %.2f x   peak RSS %6.1f MB (%.3f x file)" % (
            a.threads, many["cpu"], many["wall"], " ".join("%.3f" % w for w in many["walls"]), one["wall"] / many["wall"],
            many["rss"], many["rss"] / mb), flush=True)
        if a.ceiling:
            together = statistics.median(res[2])
            row["ceiling"] = a.threads * one["wall"] / together
            print("%d x --threads 1 at once   wall %6.3f s (runs %s)   ceiling %.2f x" % (
                a.threads, together, " ".join("%.3f" % w for w in res[2]), row["ceiling"]), flush=True)
        if a.baseline_runs > 0:
            js = median_runs([a.python, "-c", "import json,sys; json.load(open(sys.argv[1]))", big], a.baseline_runs, big)
            row["json"] = js
            print("python json.load    cpu %6.2f s = %7.1f MB/s   peak RSS %6.1f MB   plumb is %.1f x faster (CPU)" % (
                js["cpu"], mb / js["cpu"], js["rss"], js["cpu"] / one["cpu"]), flush=True)
        if a.check:
            worst, rc = reference_check(a, big)
            row["check"] = worst
            print("trace_reference.py --check: worst difference %.3f pp (exit %d)" % (worst, rc), flush=True)
        if a.gzip:
            gz = big + ".gz"
            subprocess.run(["gzip", "-6", "-k", "-f", big], check=True)
            try:
                g = median_runs([a.plumb, "trace", gz, "-f", "json", "--threads", "1"], a.runs, gz)
                row["gzip"] = g
                print("plumb on .gz (%.1f MB compressed)  cpu %6.2f s = %7.1f MB/s of JSON   peak RSS %6.1f MB" % (
                    os.path.getsize(gz) / 1e6, g["cpu"], mb / g["cpu"], g["rss"]), flush=True)
            finally:
                os.unlink(gz)
    finally:
        if not a.keep:
            os.unlink(big)
    return row


def free_page_reporting():
    """Whether this machine's kernel reports free memory to a host: a virtio balloon (device 0x0005)
    offering feature bit 5, VIRTIO_BALLOON_F_REPORTING (Linux Documentation/mm/free_page_reporting.rst).
    There, a huge page freed more than 2 s ago costs many times one freed just before, and the
    two-thread medians are bimodal (docs/performance-trace.md)."""
    base = "/sys/bus/virtio/devices"
    try:
        devices = sorted(os.listdir(base))
    except OSError:
        return "no (no virtio devices)"
    for d in devices:
        try:
            with open(os.path.join(base, d, "device")) as f:
                if f.read().strip() != "0x0005":
                    continue
            with open(os.path.join(base, d, "features")) as f:
                features = f.read().strip()
        except OSError:
            continue
        if len(features) > 5 and features[5] == "1":
            return "yes (virtio balloon %s): figures move with which huge pages the kernel has at hand" % d
    return "no"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plumb", required=True)
    ap.add_argument("--seeds", default="kernel,cpu,nccl", help="comma-separated: kernel, cpu, nccl or trace paths")
    ap.add_argument("--size-mb", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline-runs", type=int, default=1, help="runs of json.load (0: skip it)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--check", action="store_true", help="compare with bench/trace_reference.py")
    ap.add_argument("--gzip", action="store_true", help="also time the gzip-compressed trace")
    ap.add_argument("--ceiling", action="store_true", help="also time --threads 1 runs, as many as --threads, at once")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    print("%s, %d CPUs, load average %s, free page reporting: %s" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count() or 0,
        " ".join("%.2f" % x for x in os.getloadavg()), free_page_reporting()), flush=True)
    rows = []
    for s in a.seeds.split(","):
        rows.append(bench_seed(a, s if s in SEEDS else os.path.basename(s), os.path.join(CORPUS, SEEDS[s]) if s in SEEDS else s))
    print()
    print("| trace | MB | CPU MB/s, 1 thread | wall speed-up, %d threads | ceiling | peak RSS / file (1 / %d threads) | vs json.load (CPU) | reference |" % (a.threads, a.threads))
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        one, many = r["one"], r["many"]
        print("| %s (%s) | %.0f | %.0f | %.2f× | %s | %.3f / %.3f | %s | %s |" % (
            r["label"], r["seed"], r["mb"], r["mb"] / one["cpu"], one["wall"] / many["wall"],
            "%.2f×" % r["ceiling"] if "ceiling" in r else "-", one["rss"] / r["mb"],
            many["rss"] / r["mb"], "%.1f×" % (r["json"]["cpu"] / one["cpu"]) if "json" in r else "-",
            "%.3f pp" % r["check"] if "check" in r else "-"))
    if any("gzip" in r for r in rows):
        print()
        for r in rows:
            if "gzip" in r:
                print("gzip %s: %.0f MB/s of JSON (CPU, 1 thread)" % (r["label"], r["mb"] / r["gzip"]["cpu"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
