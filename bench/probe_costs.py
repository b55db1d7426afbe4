#!/usr/bin/env python3
"""What plumb's framework probe costs on this machine, package by package, and what it leaves on the GPUs.

Runs, ROUNDS times and alternating within each round:
  - each given probe script (default: src/collect/python_probe.py, the one plumb embeds; give an
    older copy too, e.g. from `git show REV:src/collect/python_probe.py`, to compare) under the
    environment plumb gives it (PYTHONDONTWRITEBYTECODE=1, XLA_PYTHON_CLIENT_PREALLOCATE=false,
    TF_FORCE_GPU_ALLOW_GROWTH=true): its wall time and the seconds it reports per package;
  - `PYTHON -c pass` (the interpreter's own start) and `PYTHON -c 'import numpy, torch'` (the
    imports the probe cannot avoid where torch is installed);
and, where nvidia-smi exists, samples every 50 ms while each probe runs the GPUs' used memory and
the compute processes (a process that created a CUDA context is listed; one that only asked the
driver questions is not). Prints one line per run and the medians.

Usage: bench/probe_costs.py [--python python3] [--rounds 3] [PROBE.py ...]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = {"PYTHONDONTWRITEBYTECODE": "1", "XLA_PYTHON_CLIENT_PREALLOCATE": "false", "TF_FORCE_GPU_ALLOW_GROWTH": "true"}
MARK = "PLUMB-PROBE-JSON "


def have_nvidia_smi():
    try:
        return subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def sampled(cmd, env, gpu):
    """Runs cmd; returns (wall seconds, stdout, GPU memory MiB values seen, compute processes seen)."""
    samplers = []
    if gpu:
        for query in (["--query-gpu=memory.used"], ["--query-compute-apps=pid,process_name,used_memory"]):
            samplers.append(subprocess.Popen(["nvidia-smi", *query, "--format=csv,noheader,nounits", "-lms", "50"],
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
        time.sleep(0.5)
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=False)
    wall = time.monotonic() - t0
    mem, apps = set(), set()
    if gpu:
        time.sleep(0.3)
        for s in samplers:
            s.terminate()
        mem = {line.strip() for line in samplers[0].communicate(timeout=30)[0].splitlines() if line.strip()}
        apps = {line.strip() for line in samplers[1].communicate(timeout=30)[0].splitlines() if line.strip()}
    return wall, p.stdout, mem, apps


def per_package(out):
    import json
    for line in out.splitlines():
        if line.startswith(MARK):
            return {k: v.get("seconds", 0.0) for k, v in json.loads(line[len(MARK):])["packages"].items()}
    return {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="python3")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("probes", nargs="*", default=[os.path.join(HERE, "..", "src", "collect", "python_probe.py")])
    a = ap.parse_args()
    env = dict(os.environ, **ENV)
    gpu = have_nvidia_smi()
    print("%s, %d CPUs, load %s, nvidia-smi: %s" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count() or 0,
                                                   " ".join("%.2f" % x for x in os.getloadavg()), "yes" if gpu else "no"))
    subprocess.run([a.python, a.probes[0]], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    walls = {}
    for r in range(1, a.rounds + 1):
        for probe in a.probes:
            wall, out, mem, apps = sampled([a.python, probe], env, gpu)
            walls.setdefault(probe, []).append(wall)
            pk = per_package(out)
            print("round %d  %-40s %7.0f ms   %s" % (r, os.path.basename(probe), wall * 1000,
                                                   " ".join("%s %.3f" % kv for kv in sorted(pk.items())) or "no answer"))
            if gpu:
                print("          GPU memory used (MiB) seen: %s; compute processes seen: %s" % (
                    ", ".join(sorted(mem, key=lambda x: (len(x), x))) or "-", "; ".join(sorted(apps)) or "none"))
        for label, code in (("-c pass", "pass"), ("-c 'import numpy, torch'", "import numpy, torch")):
            t0 = time.monotonic()
            rc = subprocess.run([a.python, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                check=False).returncode
            walls.setdefault(label, []).append(time.monotonic() - t0)
            print("round %d  %-40s %7.0f ms%s" % (r, a.python + " " + label, walls[label][-1] * 1000,
                                                  "" if rc == 0 else " (exit %d)" % rc))
    print("medians of %d rounds:" % a.rounds)
    for k, v in walls.items():
        print("  %-48s %7.0f ms" % (os.path.basename(k) if k.endswith(".py") else a.python + " " + k,
                                    statistics.median(v) * 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
