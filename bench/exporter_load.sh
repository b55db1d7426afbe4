#!/usr/bin/env bash
# Load test of `plumb exporter` /metrics with wrk (Debian package wrk): loopback only, bounded in
# connections and time. Reports p99 latency, throughput and errors (target: p99 < 5 ms, 0 errors).
#
#   bench/exporter_load.sh [SECONDS] [CONNECTIONS] [PLUMB_BINARY]
#
# Defaults: 10 s, 50 connections. GPUs as in watch_overhead.sh (PLUMB_NVML_LIB or 8 scripted).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-10}"
conns="${2:-50}"
plumb="${3:-build/release/plumb}"
[ -x "$plumb" ] || plumb=build/debug/plumb
command -v wrk >/dev/null || { echo "wrk not installed (apt-get install wrk)" >&2; exit 2; }
case "$secs$conns" in *[!0-9]*) echo "SECONDS and CONNECTIONS must be whole numbers" >&2; exit 2;; esac
[ "$secs" -le 120 ] && [ "$conns" -le 200 ] || { echo "bounded: at most 120 s and 200 connections" >&2; exit 2; }
gpu_args=()
[ -n "${PLUMB_NVML_LIB:-}" ] || gpu_args=(--gpu-script tests/fixtures/watch/gpu-scripts/eight-gpus.json)
log=$(mktemp)
"$plumb" exporter --listen 127.0.0.1:0 --interval 1s --max-connections $((conns + 16)) "${gpu_args[@]}" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$log"' EXIT
port=""
for _ in $(seq 1 100); do
  port=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -1 | sed 's/.*://') || true
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "exporter did not start:"; cat "$log"; exit 1; }
bytes="?"; command -v curl >/dev/null && bytes=$(curl -s "http://127.0.0.1:$port/metrics" | wc -c)
echo "plumb exporter on 127.0.0.1:$port, /metrics is $bytes bytes; wrk -t2 -c$conns -d${secs}s --latency"
wrk -t2 -c"$conns" -d"${secs}s" --timeout 2s --latency "http://127.0.0.1:$port/metrics" | tee /dev/stderr |
  awk '/^ +99%/ {p99=$2} /Requests\/sec/ {rps=$2} /Non-2xx|Socket errors/ {err=err $0 "; "} END {
    printf "p99 latency %s, %s requests/s, errors: %s\n", p99, rps, (err == "" ? "none" : err) }'
