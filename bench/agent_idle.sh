#!/usr/bin/env bash
# Idle cost of `plumb agent` between cycles: the kernel log followed every 2 s, the state served
# on loopback, no check due (--interval 1h). Measured after the first cycle, from the process's
# own CPU counters (/proc/PID/stat utime + stime) over SECONDS, and its resident memory (VmRSS,
# VmHWM). Targets: < 0.5 % of one core, < 40 MB RSS. The same window is measured, in the same
# run, for `plumb exporter --no-check` and, where installed, prometheus-node-exporter idle (the
# always-on agents a node already runs), and the ratios are printed.
#
#   bench/agent_idle.sh [SECONDS] [PLUMB_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
plumb="${2:-build/release/plumb}"
[ -x "$plumb" ] || plumb=build/debug/plumb
[ -x "$plumb" ] || { echo "build plumb first (cmake --preset release && cmake --build build/release --target plumb)" >&2; exit 2; }
case "$secs" in ''|*[!0-9]*) echo "SECONDS must be a whole number" >&2; exit 2;; esac
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
cp -r tests/fixtures/hosts/healthy "$tmp/root"
mkdir -p "$tmp/root/proc/sys/kernel/random"
echo "00000001-0000-4000-8000-000000000000" >"$tmp/root/proc/sys/kernel/random/boot_id"
printf '[    0.0] Linux version 6.1.0\n' >"$tmp/kmsg.log"
hz=$(getconf CLK_TCK)

# CPU seconds (user + system) of a process so far.
cpu_of() { awk -v hz="$hz" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"; }
kib_of() { awk -v k="$2" '$1 == k":" { print $2 }' "/proc/$1/status"; }

# Starts a command in the background, waits until `ready` succeeds, measures the window.
measure() {
  local name=$1 ready=$2
  shift 2
  "$@" >"$tmp/$name.out" 2>&1 &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 300); do
    if eval "$ready"; then break; fi
    sleep 0.1
  done
  sleep 1
  local c0 c1
  c0=$(cpu_of "$pid")
  sleep "$secs"
  c1=$(cpu_of "$pid")
  local rss hwm
  rss=$(kib_of "$pid" VmRSS)
  hwm=$(kib_of "$pid" VmHWM)
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  awk -v n="$name" -v a="$c0" -v b="$c1" -v s="$secs" -v r="$rss" -v h="$hwm" \
    'BEGIN { printf "%s %.4f %.1f %.1f\n", n, (b - a) / s * 100, r / 1024, h / 1024 }' >>"$tmp/results"
}

measure agent "grep -q '\"cycles\": 1' <(curl -s http://127.0.0.1:19465/state 2>/dev/null)" \
  "$plumb" agent --root "$tmp/root" --kmsg "$tmp/kmsg.log" --state-dir "$tmp/state" --no-bench \
  --nvml-lib "$tmp/none.so" --interval 1h --listen 127.0.0.1:19465 --quiet
# On this machine's own /dev/kmsg (the whole ring buffer read every 2 s), where it is readable.
if timeout 2 dd if=/dev/kmsg of=/dev/null bs=8192 count=1 iflag=nonblock 2>/dev/null; then
  measure agent_dev_kmsg "grep -q '\"cycles\": 1' <(curl -s http://127.0.0.1:19466/state 2>/dev/null)" \
    "$plumb" agent --state-dir "$tmp/state-live" --no-bench --interval 1h --listen 127.0.0.1:19466 --quiet
fi
measure exporter "curl -sf http://127.0.0.1:19464/healthz >/dev/null" \
  "$plumb" exporter --root "$tmp/root" --no-check --listen 127.0.0.1:19464 --gpu-script tests/fixtures/watch/gpu-scripts/healthy.json
if command -v prometheus-node-exporter >/dev/null; then
  measure node_exporter "curl -sf http://127.0.0.1:19100/metrics >/dev/null" \
    prometheus-node-exporter --web.listen-address=127.0.0.1:19100
fi
echo "idle for $secs s after start-up ($plumb, $(nproc) CPUs, $(date -u +%Y-%m-%d))"
awk '$1 ~ /^agent/ { base = $2 }
  { printf "  %-14s CPU %.4f %% of one core   RSS %.1f MB (peak %.1f MB)", $1, $2, $3, $4
    if ($1 ~ /^agent/) printf "   targets < 0.5 %% %s, < 40 MB %s", ($2 < 0.5 ? "OK" : "OVER"), ($4 < 40 ? "OK" : "OVER")
    else if ($2 > 0) printf "   agent/this CPU %.2f", base / $2
    printf "\n" }' "$tmp/results"
