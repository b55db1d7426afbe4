#!/bin/sh
# The fleet store at scale, on a real PostgreSQL 15 started here (a temporary cluster on a unix
# socket; as root the server runs as nobody): a history of NODES nodes over DAYS days (a result
# every STEP hours, a benchmark once a day, kernel events, planted repeat offenders, rising events,
# a driver change with a regression and one odd node), then `plumb fleet report --store` (wall
# time and peak RSS, median of RUNS) and, when the Google Benchmark target is built, the ingest of
# 10,000 nodes' pushes (bench/fleet_store_bench.cpp). Usage:
#   bench/fleet_store.sh [PLUMB] [NODES=10000] [DAYS=30] [STEP=2] [RUNS=3]
# Needs /usr/lib/postgresql/15/bin, python3 and GNU time (/usr/bin/time).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
plumb=${1:-$repo/build/release/plumb}
nodes=${2:-10000}
days=${3:-30}
step=${4:-2}
runs=${5:-3}
plumb=$(cd "$(dirname "$plumb")" && pwd)/$(basename "$plumb")
pgbin=/usr/lib/postgresql/15/bin
work=$(mktemp -d /tmp/plumb-store-bench.XXXXXX)
chmod 755 "$work"
mkdir "$work/data" "$work/sock"
as_pg=""
if [ "$(id -u)" = 0 ]; then
  chown 65534:65534 "$work/data" "$work/sock"
  as_pg="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
port=$((50000 + $$ % 10000))
url="postgresql://plumb@/postgres?host=$work/sock&port=$port"
cleanup() {
  (cd /tmp && $as_pg "$pgbin/pg_ctl" -D "$work/data" -m fast -w stop > /dev/null 2>&1) || true
  rm -rf "$work"
}
# KEEP=1: leave the server running with its data (the URL is printed) for EXPLAIN ANALYZE.
if [ "${KEEP:-0}" = 1 ]; then trap 'echo "kept: $url (stop: pg_ctl -D $work/data stop)"' EXIT; else trap cleanup EXIT; fi
cd /tmp
$as_pg "$pgbin/initdb" -D "$work/data" -A trust -U plumb -E UTF8 > /dev/null
$as_pg "$pgbin/pg_ctl" -D "$work/data" -l "$work/data/server.log" -w \
  -o "-k $work/sock -p $port -c listen_addresses='' -c shared_buffers=1GB -c max_wal_size=4GB" start > /dev/null
psql() { "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$url" "$@"; }

# One node's snapshot as an agent stores it (a real push of the healthy fixture tree, which also
# creates the schema); every node gets a copy under its own name.
mkdir -p "$work/node"
cp -r "$repo/tests/fixtures/hosts/healthy" "$work/node/root"
mkdir -p "$work/node/root/proc/sys/kernel/random"
echo "00000001-0000-4000-8000-000000000001" > "$work/node/root/proc/sys/kernel/random/boot_id"
: > "$work/node/kmsg"
"$plumb" agent --once --root "$work/node/root" --kmsg "$work/node/kmsg" --state-dir "$work/node/state" --no-bench \
  --store "$url" --format json > "$work/snap.json" || true
psql -c "SELECT snapshot FROM plumb_nodes" > "$work/stored.json"
psql -c "TRUNCATE plumb_results, plumb_events, plumb_nodes"
python3 - "$work/stored.json" "$work/snap.tmpl" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc['facts']['meta']['hostname'] = '@NODE@'
open(sys.argv[2], 'w').write(json.dumps(doc))
PY
echo "snapshot: $(wc -c < "$work/snap.json") bytes as plumb check --save writes it, $(wc -c < "$work/snap.tmpl") bytes as the store keeps it"

start=$(date +%s.%N)
export snap_file="$work/snap.tmpl"
psql -v nodes="$nodes" -v days="$days" -v step="$step" <<'SQL'
\set snap `cat $snap_file`
-- Results: every STEP hours per node; nodes 1-20 fail every 6 h in the last week (repeat
-- offenders); a benchmark at midnight; nodes 101-110 moved to driver 550 five days ago and their
-- copy bandwidth fell 25 %.
INSERT INTO plumb_results(node, local_id, time, boot_id, exit_code, failures, warnings, findings, kernel, driver, bench)
SELECT 'node-' || lpad(n::text, 5, '0'), h, t, 'boot-' || n, f, f, 0,
       CASE WHEN f = 1 THEN '[{"id":"l3.gpu.xid","subject":"0000:3b:00","status":"fail"}]' ELSE '[]' END::jsonb,
       '6.1.0-18-amd64', CASE WHEN n BETWEEN 101 AND 110 AND t > now() - interval '5 days' THEN '550.54.15' ELSE '535.161.08' END,
       CASE WHEN extract(hour FROM t AT TIME ZONE 'UTC') < :step THEN
         jsonb_build_object('membw.copy.all', jsonb_build_array(
           CASE WHEN n BETWEEN 101 AND 110 AND t > now() - interval '5 days' THEN 75 ELSE 100 END + (n % 7) * 0.1, true)) END
FROM generate_series(1, :nodes) n,
     LATERAL (SELECT h, date_trunc('hour', now()) - (h * :step) * interval '1 hour' AS t FROM generate_series(0, :days * 24 / :step - 1) h) s,
     LATERAL (SELECT CASE WHEN n <= 20 AND t > now() - interval '7 days' AND h % (6 / :step + 1) = 0 THEN 1 ELSE 0 END AS f) x;
-- Events: about one per node in three days; nodes 201-210 log ten a day this week.
INSERT INTO plumb_events(node, time, boot_id, source, pos, kind, subject, code, evidence, finding)
SELECT 'node-' || lpad(n::text, 5, '0'), now() - ((e - 1) * 72 + 36) * interval '1 hour' - (n % 60) * interval '1 minute',
       'boot-' || n, '/dev/kmsg', e, 'pcie_aer', '0000:3b:00.0', 'corrected',
       'pcieport 0000:3a:00.0: AER: Corrected error received: 0000:3b:00.0', 'l3.platform.pcie_aer'
FROM generate_series(1, :nodes) n, generate_series(1, :days / 3) e;
INSERT INTO plumb_events(node, time, boot_id, source, pos, kind, subject, code, evidence, finding)
SELECT 'node-' || lpad(n::text, 5, '0'), now() - e * interval '16 hours', 'boot-' || n, '/dev/kmsg', 100000 + e, 'xid', '0000:3b:00', '79',
       'NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.', 'l3.gpu.xid'
FROM generate_series(201, 210) n, generate_series(1, 10) e;
-- The latest snapshot of every node; node-00042 runs another kernel.
INSERT INTO plumb_nodes(node, time, snapshot)
SELECT 'node-' || lpad(n::text, 5, '0'), now(),
       CASE WHEN n = 42 THEN replace(replace(:'snap', '@NODE@', 'node-00042'), '6.1.0', '5.15.0') ELSE replace(:'snap', '@NODE@', 'node-' || lpad(n::text, 5, '0')) END
FROM generate_series(1, :nodes) n;
VACUUM ANALYZE;
SQL
end=$(date +%s.%N)
echo "history generated in $(awk "BEGIN {printf \"%.0f\", $end - $start}") s: $(psql -c 'SELECT count(*) FROM plumb_results') results, $(psql -c 'SELECT count(*) FROM plumb_events') events, $(psql -c 'SELECT count(*) FROM plumb_nodes') nodes, database $(psql -c "SELECT pg_size_pretty(pg_database_size('postgres'))")"

i=0
: > "$work/times"
while [ "$i" -lt "$runs" ]; do
  /usr/bin/time -f '%e %M %U %S' -o "$work/t" "$plumb" fleet report --store "$url" --format json > "$work/report.json" || true
  grep -v "^Command exited" "$work/t" >> "$work/times"
  i=$((i + 1))
done
sort -n "$work/times" | awk -v n="$nodes" '{t[NR]=$1; m[NR]=$2; c[NR]=$3+$4} END {mid=int((NR+1)/2); printf "fleet report --store, %d nodes: median %.2f s wall (min %.2f, max %.2f), %.2f s CPU, peak RSS %.0f MiB\n", n, t[mid], t[1], t[NR], c[mid], m[mid]/1024}'
python3 - "$work/report.json" <<'PY'
import json, sys, collections
doc = json.load(open(sys.argv[1]))
f = doc['facts']['fleet']
c = collections.Counter(x['id'] for x in doc['findings'] if x['status'] in ('fail', 'warn') and x['id'].startswith(('l3.fleet', 'l2.fleet')))
print('drain:', len(f['drain']), 'nodes (first:', f['drain'][0]['host'] if f['drain'] else '-', ');', dict(sorted(c.items())))
PY

ingest=$(dirname "$plumb")/bench/fleet_store_bench
if [ -x "$ingest" ]; then
  PLUMB_BENCH_STORE="$url" PLUMB_BENCH_SNAPSHOT="$work/snap.json" "$ingest" --benchmark_counters_tabular=true ${INGEST_FILTER:+--benchmark_filter=$INGEST_FILTER}
else
  echo "no $ingest (build the bench targets for the ingest figures)"
fi
