#!/usr/bin/env bash
# Overhead of `plumb watch --interval 100ms` on the job it watches: plumb's CPU time as a share
# of one core (target < 0.5 %) and its peak RSS (target < 20 MB).
#
#   bench/watch_overhead.sh [SECONDS] [PLUMB_BINARY]
#
# SECONDS defaults to 60 (the run length the overhead target is stated for; 10 for a quick run).
# GPUs: the NVML library in PLUMB_NVML_LIB (the fake 8-GPU NVML of tests/helpers/fake_nvml, or the
# real driver) when it is set, else the scripted 8-GPU sampler
# (tests/fixtures/watch/gpu-scripts/eight-gpus.json).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
plumb="${2:-build/release/plumb}"
[ -x "$plumb" ] || plumb=build/debug/plumb
[ -x "$plumb" ] || { echo "build plumb first (cmake --preset release && cmake --build build/release --target plumb)" >&2; exit 2; }
case "$secs" in ''|*[!0-9]*) echo "SECONDS must be a whole number" >&2; exit 2;; esac
gpu_args=()
if [ -n "${PLUMB_NVML_LIB:-}" ]; then
  gpu_source="NVML: $PLUMB_NVML_LIB"
else
  gpu_args=(--gpu-script tests/fixtures/watch/gpu-scripts/eight-gpus.json)
  gpu_source="scripted 8 GPUs"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# GNU time's %U/%S are the child's user/system CPU seconds, %M its peak RSS in KiB.
/usr/bin/time -f '%U %S %M %e' -o "$out" "$plumb" watch --interval 100ms --duration "${secs}s" --quiet \
  "${gpu_args[@]}" >/dev/null || true
read -r user sys rss_kib wall < <(tail -n 1 "$out")
awk -v u="$user" -v s="$sys" -v r="$rss_kib" -v w="$wall" -v g="$gpu_source" -v b="$plumb" 'BEGIN {
  cpu = (u + s) / w * 100
  printf "plumb watch --interval 100ms for %.1f s (%s, %s)\n", w, b, g
  printf "  CPU: %.3f %% of one core (user %.2f s, system %.2f s)   target < 0.5 %%  %s\n", cpu, u, s, (cpu < 0.5 ? "OK" : "OVER")
  printf "  RSS: %.1f MB peak                                       target < 20 MB   %s\n", r / 1024, (r / 1024 < 20 ? "OK" : "OVER")
}'
