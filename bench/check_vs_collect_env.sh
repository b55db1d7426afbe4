#!/usr/bin/env bash
# Times `plumb check` (release build) against PyTorch's `python3 -m torch.utils.collect_env` on this
# machine, in the same run, and prints both medians and the ratio. Method: docs/performance.md.
#
#   bench/check_vs_collect_env.sh [RUNS]        # default 15 plumb runs, 5 collect_env runs
#   PLUMB_BIN=path/to/plumb  use this binary instead of building build/release
#   PYTHON=/usr/bin/python3  the interpreter that has torch (Debian's python3-torch; a pyenv python3
#                            on PATH usually has no torch, so the default is the system one)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-15}
py_runs=${PY_RUNS:-5}
python=${PYTHON:-/usr/bin/python3}

if [ -z "${PLUMB_BIN:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build build/release --target plumb -j"$(nproc)" >/dev/null
  PLUMB_BIN=build/release/plumb
fi
[ -x "$PLUMB_BIN" ] || { echo "bench: $PLUMB_BIN is not executable" >&2; exit 2; }
if ! "$python" -c 'import torch.utils.collect_env' 2>/dev/null; then
  echo "bench: $python cannot import torch.utils.collect_env (install python3-torch or set PYTHON)" >&2
  exit 2
fi

# Median wall time in milliseconds of RUNS runs of a command (after one warm-up run).
# hyperfine when installed, else a loop around date +%s%N.
median_ms() {
  local n=$1; shift
  if command -v hyperfine >/dev/null; then
    local out
    out=$(mktemp)
    hyperfine --style none --warmup 1 --runs "$n" --ignore-failure --export-json "$out" -- "$(printf '%q ' "$@")" >/dev/null
    "$python" -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$out"
    rm -f "$out"
    return
  fi
  "$@" >/dev/null 2>&1 || true
  local times=() t0 t1
  for ((i = 0; i < n; i++)); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f\n", m / 1000}'
}

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "plumb:   $PLUMB_BIN check --format json ($runs runs)"
echo "peer:    $python -m torch.utils.collect_env ($py_runs runs, torch $("$python" -c 'import torch; print(torch.__version__)'))"
plumb_ms=$(median_ms "$runs" "$PLUMB_BIN" check --format json)
peer_ms=$(median_ms "$py_runs" "$python" -m torch.utils.collect_env)

# What each one reports: plumb's facts (leaf values, including "missing" reasons) and findings,
# collect_env's non-empty "key: value" lines.
plumb_json=$("$PLUMB_BIN" check --format json 2>/dev/null || true)
plumb_facts=$(printf '%s' "$plumb_json" | "$python" -c '
import json, sys
d = json.load(sys.stdin)
def leaves(x):
    if isinstance(x, dict): return sum(leaves(v) for v in x.values())
    if isinstance(x, list): return sum(leaves(v) for v in x) or 0
    return 0 if x is None else 1
print(leaves(d["facts"]["host"]), len(d["findings"]))')
peer_lines=$("$python" -m torch.utils.collect_env 2>/dev/null | grep -c ':' || true)

# Where plumb's time goes: the check without the framework probe, the probe's interpreter starting
# and doing nothing (the floor of the probe), and one --timings table.
probe_python=$(printf '%s' "$plumb_json" | "$python" -c '
import json, sys
d = json.load(sys.stdin)
print(((d["facts"].get("framework") or {}).get("python") or {}).get("value", {}).get("executable") or "")' 2>/dev/null || true)
rest_ms=$(median_ms "$runs" "$PLUMB_BIN" check --format json --skip collect.python)
if [ -n "$probe_python" ] && [ -x "$probe_python" ]; then
  start_ms=$(median_ms "$runs" "$probe_python" -c pass)
else
  probe_python="(none)" start_ms=0
fi

echo
printf 'plumb check median:        %8.1f ms  (%s host facts, %s findings)\n' "$plumb_ms" ${plumb_facts}
printf 'collect_env median:        %8.1f ms  (%s "key: value" lines)\n' "$peer_ms" "$peer_lines"
"$python" -c 'import sys; p, c = float(sys.argv[1]), float(sys.argv[2]); print("ratio collect_env / plumb: %8.1fx  (target >= 20x; plumb target < 100 ms: %s)" % (c / p, "met" if p < 100 else "NOT met"))' "$plumb_ms" "$peer_ms"
printf 'plumb check --skip collect.python: %8.1f ms  (every layer but the framework probe)\n' "$rest_ms"
printf '%s -c pass:  %8.1f ms  (the probe interpreter'"'"'s own start)\n' "$probe_python" "$start_ms"
echo
"$PLUMB_BIN" check --format json --timings 2>&1 >/dev/null | grep -v '^plumb: ' || true
