#!/usr/bin/env python3
"""Independent re-computation of plumb trace's step metrics with the standard json module.

Usage:
  trace_reference.py TRACE [TRACE...]                  print the reference numbers as JSON
  trace_reference.py --check PLUMB_JSON TRACE [...]    compare with `plumb trace -f json` output
                                                       (shares within 0.5 percentage points)

It re-implements, from the definitions in docs/trace.md and not from plumb's code: ProfilerStep
windows (last step not counted when shorter than half the median of the others), data-loader wait
(union of enumerate(DataLoader)# spans clipped to the step), HtoD memcpy time, GPU busy (union of
kernel/memcpy/memset intervals, all streams) and idle, and HTA's temporal breakdown (iteration
filter, ns rounding, union over rows with a stream) so that plumb's numbers can be checked.
It is also the "load the whole file with Python's json" baseline of bench/trace_bench.py.
"""
import gzip
import json
import math
import sys


def load(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def union(intervals):
    out = []
    for b, e in sorted(intervals):
        if out and b <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([b, e])
    return out


def clipped(merged, b, e):
    return sum(max(0.0, min(e, y) - max(b, x)) for x, y in merged if y > b and x < e)


def length(merged):
    return sum(y - x for x, y in merged)


def intersect(a, b):
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            out.append([lo, hi])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


CPU_CATS = (None, "cpu_op", "Operator", "user_annotation")
GPU_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
            "gpu_memset": "memset", "Memset": "memset"}


def hta_type(n):
    if n.startswith(("nccl", "hip", "hccl")) or "ncclKernel" in n:
        return "comm"
    if n.startswith(("Memcpy", "Memset", "dma")):
        return "mem"
    bad = any(s in n for s in ("Memcpy", "Memset", "dma", "Sync")) or n.startswith((
        "Stream Wait Event", "runFunction", "job_exe", "packet", "pe_exe", "cpum_exe_subgraph",
        "collective_subgraph_execution")) or (n.startswith("cuda") and "LaunchKernel" in n[4:])
    return "other" if bad else "comp"


def hta_temporal(events):
    xs = [e for e in events if e.get("ph") == "X" and "cat" in e and e.get("cat") != "Trace" and "dur" in e]
    rnd = any(isinstance(e.get("ts"), float) for e in xs)

    def ts_of(e):
        return math.ceil(e["ts"]) if rnd else e["ts"]

    def end_of(e):
        return math.floor(e["ts"] + e["dur"]) if rnd else e["ts"] + e["dur"]

    def stream(e):
        s = e.get("args", {}).get("stream", -1)
        return s if isinstance(s, int) else -1

    def corr(e):
        c = e.get("args", {}).get("correlation", -1)
        return c if isinstance(c, int) else -1

    def is_gpu(e):
        return (stream(e) >= 0 and corr(e) >= 0) or e["name"] in ("Event Sync", "Context Sync")

    steps = [e for e in xs if e["name"].startswith("ProfilerStep#")]
    if len({e["name"] for e in steps}) >= 2:
        last = max(ts_of(e) for e in steps)
        kept_corr = {corr(e) for e in xs if not is_gpu(e) and ts_of(e) < last}
        rows = [e for e in xs if stream(e) != -1 and
                ((is_gpu(e) and corr(e) in kept_corr) or (not is_gpu(e) and ts_of(e) < last))]
    else:
        rows = [e for e in xs if stream(e) != -1]
    if not rows:
        return None
    allu = union([(ts_of(e), end_of(e)) for e in rows])
    comp = union([(ts_of(e), end_of(e)) for e in rows if hta_type(e["name"]) == "comp"])
    kernel_time = allu[-1][1] - allu[0][0]
    idle = kernel_time - length(allu)
    compute = length(comp)
    return {"kernel_time_us": kernel_time, "idle_time_us": idle, "compute_time_us": compute,
            "idle_pctg": round(100.0 * idle / kernel_time, 2) if kernel_time else 0.0}


def reference(path):
    doc = load(path)
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    xs = [e for e in events if e.get("ph") == "X" and e.get("cat") != "Trace"]
    steps = sorted((e for e in xs if e["name"].startswith("ProfilerStep#") and e.get("cat") in CPU_CATS),
                   key=lambda e: e["ts"])
    windows = [(e["name"], e["ts"], e["ts"] + e["dur"]) for e in steps]
    if not windows:
        windows = [("whole trace", min(e["ts"] for e in xs), max(e["ts"] + e["dur"] for e in xs))]
    complete = [True] * len(windows)
    if len(steps) >= 2:
        others = sorted(w[2] - w[1] for w in windows[:-1])
        n = len(others)
        med = others[n // 2] if n % 2 else (others[n // 2 - 1] + others[n // 2]) / 2
        if windows[-1][2] - windows[-1][1] < 0.5 * med:
            complete[-1] = False
    dl = union([(e["ts"], e["ts"] + e["dur"]) for e in xs
                if e["name"].startswith("enumerate(DataLoader)#") and e.get("cat") in CPU_CATS])
    gpu = [e for e in xs if e.get("cat") in GPU_CATS]
    busy = union([(e["ts"], e["ts"] + e["dur"]) for e in gpu])
    h2d = union([(e["ts"], e["ts"] + e["dur"]) for e in gpu
                 if GPU_CATS[e["cat"]] == "memcpy" and e["name"].startswith("Memcpy HtoD")])
    out_steps, tot = [], {"duration_us": 0.0, "dataloader_us": 0.0, "h2d_us": 0.0, "gpu_idle_us": 0.0}
    for (name, b, e), ok in zip(windows, complete):
        s = {"name": name, "duration_us": e - b, "dataloader_us": clipped(dl, b, e), "complete": ok}
        if gpu:
            s["h2d_us"] = clipped(h2d, b, e)
            s["gpu_busy_us"] = clipped(busy, b, e)
            s["gpu_idle_us"] = s["duration_us"] - s["gpu_busy_us"]
        out_steps.append(s)
        if ok:
            for k in tot:
                tot[k] += s.get(k, 0.0)
    T = tot["duration_us"]
    summary = {"dataloader_share": tot["dataloader_us"] / T if T and dl else None}
    if gpu:
        summary["gpu_idle_share"] = tot["gpu_idle_us"] / T if T else None
        summary["h2d_share"] = tot["h2d_us"] / T if T else None
    summary["hta"] = hta_temporal(events)
    return {"file": path, "steps": out_steps, "summary": summary}


def check(plumb_json, paths):
    doc = json.load(open(plumb_json))
    traces = {t["file"]: t for t in doc["facts"]["trace"]["traces"]}
    worst = 0.0
    bad = 0
    for p in paths:
        ref = reference(p)
        got = traces[p]
        s = got["summary"]
        pairs = [("dataloader_share", s.get("dataloader_share"), ref["summary"]["dataloader_share"])]
        if "gpu_idle_share" in ref["summary"]:
            pairs.append(("gpu_idle_share", s.get("gpu_idle_share"), ref["summary"]["gpu_idle_share"]))
            h2d = s.get("h2d_us")
            tot = s.get("step_time_total_us")
            pairs.append(("h2d_share", h2d / tot if h2d is not None and tot else None, ref["summary"]["h2d_share"]))
        if ref["summary"]["hta"] and s.get("hta"):
            pairs.append(("hta idle_pctg/100", s["hta"]["idle_pctg"] / 100, ref["summary"]["hta"]["idle_pctg"] / 100))
        for name, a, b in pairs:
            if a is None and b is None:
                continue
            diff = abs((a or 0) - (b or 0)) * 100 if (a is None) == (b is None) else float("inf")
            worst = max(worst, diff)
            flag = "ok" if diff <= 0.5 else "MISMATCH"
            bad += flag != "ok"
            print("%-70s %-18s plumb %8s  reference %8s  diff %.3f pp  %s" % (
                p[-70:], name, "n/a" if a is None else "%.4f" % a, "n/a" if b is None else "%.4f" % b, diff, flag))
    print("worst difference: %.3f percentage points" % worst)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "--check":
        return check(argv[1], argv[2:])
    if not argv:
        print(__doc__)
        return 2
    json.dump([reference(p) for p in argv], sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
