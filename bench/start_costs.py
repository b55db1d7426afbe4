#!/usr/bin/env python3
"""Where a short plumb command's time goes before and after its own work (docs/performance.md).

Runs each command RUNS times after one warm-up and prints the median wall time (spawn to reaped),
CPU time and page faults of one run (from getrusage of the children):

  1. an empty C program: the floor any process start pays on this machine;
  2. the same program linked against the shared libraries the plumb binary links (read from
     `ldd`): what the dynamic loader adds before plumb's own code runs;
  3. `plumb --version`: the above, plumb's static initialisation and its command-line tree;
  4. `plumb check --help`: one command's option tree;
  5. `plumb check --format json --no-history --skip collect.python`: every layer but the
     framework probe;
  6. `plumb check --format json --no-history`: the whole check;
  7. the framework probe's interpreter doing nothing (`-c pass`, the interpreter the check chose);
  8. the framework probe alone: that interpreter running src/collect/python_probe.py (the script
     plumb embeds) with the environment plumb gives it.

Then the target's own figure, measured in pairs (the whole check and the probe alone, one after
the other, RUNS times, so both see the same machine): the median of (check - probe alone), what
the check adds to the one step it cannot shorten.

Usage: bench/start_costs.py [--plumb build/release/plumb] [--runs 30]
Needs a C compiler ($CC or cc) for rows 1 and 2; without one they are left out, saying so.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


# The environment plumb adds to the probe's (collect/python_probe.cpp, probe_options).
PROBE_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8", "TF_CPP_MIN_LOG_LEVEL": "3",
             "XLA_PYTHON_CLIENT_PREALLOCATE": "false", "TF_FORCE_GPU_ALLOW_GROWTH": "true"}
PROBE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "collect", "python_probe.py")


def wall_ms(cmd, env=None):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    return (time.perf_counter() - start) * 1000


def measure(cmd, runs, env=None):
    """Median wall ms, CPU ms and minor page faults of `cmd` over `runs` runs (after a warm-up)."""
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    walls, cpus, faults = [], [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        walls.append(wall_ms(cmd, env))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
        faults.append(after.ru_minflt - before.ru_minflt)
    return statistics.median(walls), statistics.median(cpus), statistics.median(faults)


def paired(cmd_a, cmd_b, runs, env_b):
    """Medians of a, of b and of (a - b), the two run one after the other in each round."""
    wall_ms(cmd_a)
    wall_ms(cmd_b, env_b)
    a, b = [], []
    for _ in range(runs):
        a.append(wall_ms(cmd_a))
        b.append(wall_ms(cmd_b, env_b))
    return statistics.median(a), statistics.median(b), statistics.median(x - y for x, y in zip(a, b))


def linked_libraries(binary):
    """The shared libraries `binary` loads, as paths, without libc, libm and the loader."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=False).stdout
    libs = []
    for line in out.splitlines():
        parts = line.split("=>")
        if len(parts) != 2:
            continue
        path = parts[1].split("(")[0].strip()
        name = os.path.basename(path)
        if not path or name.startswith(("libc.so", "libm.so", "ld-linux")):
            continue
        libs.append(path)
    return libs


def build_empty_programs(workdir, libs):
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        return None, None, f"no C compiler ({cc})"
    src = os.path.join(workdir, "empty.c")
    with open(src, "w", encoding="utf-8") as f:
        f.write("int main(void) { return 0; }\n")
    empty = os.path.join(workdir, "empty")
    linked = os.path.join(workdir, "empty_linked")
    subprocess.run([cc, "-O2", src, "-o", empty], check=True)
    # Each library by its full path, kept although nothing is called (--no-as-needed).
    subprocess.run([cc, "-O2", src, "-o", linked, "-Wl,--no-as-needed"] + libs, check=True)
    return empty, linked, ""


def probe_interpreter(plumb):
    out = subprocess.run([plumb, "check", "--only", "l3.framework", "--format", "json", "--no-history"],
                         capture_output=True, text=True, check=False).stdout
    try:
        path = json.loads(out)["facts"]["framework"]["python"]["value"]["executable"]
        return path if isinstance(path, str) and os.path.exists(path) else None
    except (ValueError, KeyError, TypeError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plumb", default="build/release/plumb")
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    if a.runs < 1:
        sys.exit("--runs must be at least 1")
    if not os.access(a.plumb, os.X_OK):
        sys.exit(f"{a.plumb}: not an executable (cmake --build --preset release first)")
    load = open("/proc/loadavg", encoding="utf-8").read().split()[:3]
    print(f"machine: {os.cpu_count()} CPUs, load {' '.join(load)}; {a.runs} runs each, medians")
    libs = linked_libraries(a.plumb)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        empty, linked, why = build_empty_programs(d, libs)
        if empty is None:
            print(f"rows 1-2 left out: {why}")
        else:
            rows.append(("empty C program", [empty], None))
            rows.append((f"empty C program linked to plumb's {len(libs)} libraries", [linked], None))
        rows += [
            ("plumb --version", [a.plumb, "--version"], None),
            ("plumb check --help", [a.plumb, "check", "--help"], None),
            ("plumb check, every layer but the probe",
             [a.plumb, "check", "--format", "json", "--no-history", "--skip", "collect.python"], None),
            ("plumb check (the whole check)", [a.plumb, "check", "--format", "json", "--no-history"], None),
        ]
        py = probe_interpreter(a.plumb)
        probe_env = dict(os.environ, **PROBE_ENV)
        probe = None
        if py:
            rows.append((f"{py} -c pass (the probe's interpreter)", [py, "-c", "pass"], None))
            with open(PROBE_SCRIPT, encoding="utf-8") as f:
                probe = [py, "-c", f.read()]
            rows.append(("the framework probe alone (same interpreter, script and environment)", probe, probe_env))
        else:
            print("probe interpreter rows left out: the check reported no Python interpreter")
        print(f"{'command':<70} {'wall ms':>8} {'CPU ms':>8} {'faults':>7}")
        for label, cmd, *env in rows:
            wall, cpu, faults = measure(cmd, a.runs, env[0] if env else None)
            print(f"{label:<70} {wall:8.1f} {cpu:8.1f} {faults:7.0f}")
        if probe:
            check = [a.plumb, "check", "--format", "json", "--no-history"]
            c, p, d = paired(check, probe, a.runs, probe_env)
            print(f"paired, {a.runs} rounds: whole check {c:.1f} ms, probe alone {p:.1f} ms, "
                  f"check - probe alone {d:.1f} ms (median of the differences; target: at most 5)")
    print("shared libraries: " + " ".join(os.path.basename(p) for p in libs))


if __name__ == "__main__":
    main()
