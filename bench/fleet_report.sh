#!/bin/sh
# `plumb fleet` at scale: `plumb fleet report` over N varied snapshots (wall time and peak RSS,
# median of RUNS), then optionally the MPI path with R ranks on this machine (loopback, one
# fixture tree per rank). Usage:
#   bench/fleet_report.sh [PLUMB] [N=1024] [RUNS=5] [MPI_RANKS=0]
# Needs python3 (bench/fleet-snapshots), GNU time (/usr/bin/time) and, for the MPI part, mpirun
# and plumb-fleet next to PLUMB.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
plumb=${1:-$repo/build/release/plumb}
n=${2:-1024}
runs=${3:-5}
ranks=${4:-0}
work=$(mktemp -d /tmp/plumb-fleet-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$repo/bench/fleet-snapshots" --plumb "$plumb" --count "$n" "$work/snaps"
du -sh "$work/snaps" | awk '{print "snapshots on disk: " $1}'
i=0
: > "$work/times"
while [ "$i" -lt "$runs" ]; do
  /usr/bin/time -f '%e %M %U %S' -o "$work/t" "$plumb" fleet report "$work/snaps" --format json > "$work/report.json" || true
  grep -v "^Command exited" "$work/t" >> "$work/times"
  i=$((i + 1))
done
sort -n "$work/times" | awk -v n="$n" '{t[NR]=$1; m[NR]=$2; c[NR]=$3+$4} END {mid=int((NR+1)/2); printf "fleet report, %d snapshots: median %.2f s wall (min %.2f, max %.2f), %.2f s CPU, peak RSS %.0f MiB\n", n, t[mid], t[1], t[NR], c[mid], m[mid]/1024}'
python3 - "$work/report.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))['facts']['fleet']
print('drain:', len(f['drain']), 'nodes;', 'mismatches:', len(f['mismatches']), '; metrics:', len(f['metrics']))
PY
sed 's/^/planted /' "$work/snaps/planted.txt" | awk '{print $1, $2, NF - 2}'

if [ "$ranks" -gt 0 ]; then
  mkdir -p "$work/roots"
  set --
  r=1
  while [ "$r" -le "$ranks" ]; do
    root="$work/roots/node$r"
    cp -r "$repo/tests/fixtures/hosts/healthy" "$root"
    printf 'gpu%02d\n' "$r" > "$root/etc/hostname"
    printf 'gpu%02d\n' "$r" > "$root/proc/sys/kernel/hostname"
    [ "$r" -gt 1 ] && set -- "$@" ":"
    set -- "$@" -np 1 "$plumb" fleet --root "$root" --format json --out "$work/mpi.json"
    r=$((r + 1))
  done
  root_flag=""
  [ "$(id -u)" = 0 ] && root_flag=--allow-run-as-root
  start=$(date +%s.%N)
  mpirun $root_flag --oversubscribe --bind-to none --mca btl tcp,self --mca btl_tcp_if_include lo \
    --mca oob_tcp_if_include lo --mca pml ob1 "$@" || true
  end=$(date +%s.%N)
  python3 - "$work/mpi.json" "$start" "$end" "$ranks" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))['facts']['fleet']
answered = sum(1 for n in f['nodes'] if not n['no_result'])
print(f"MPI path, {sys.argv[4]} ranks: {float(sys.argv[3]) - float(sys.argv[2]):.1f} s wall, {answered}/{len(f['nodes'])} nodes answered, "
      f"{len(f['network']['pairs'])} pairs measured, drain {len(f['drain'])}")
PY
fi
