#!/usr/bin/env bash
# The Debian package of this build tree: cpack writes it into a temporary directory; its files,
# control data and dependencies are checked; the extracted plumb runs on a fixture root.
# Usage: deb_test.sh BUILD_DIR FIXTURE_ROOT
set -uo pipefail
build=$1
fixture=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}

for f in plumb.1.gz plumb.bash _plumb plumb.toml; do
  if [ ! -f "$build/packaging/$f" ]; then
    echo "FAIL: $build/packaging/$f missing: build the target plumb_packaging_files (or all) first"
    exit 1
  fi
done
if ! out=$(cpack -G DEB -B "$tmp/out" --config "$build/CPackConfig.cmake" 2>&1); then
  echo "FAIL: cpack: $out"
  exit 1
fi
debs=("$tmp"/out/plumb_*.deb)
[ -f "${debs[0]}" ] || { echo "FAIL: cpack wrote no plumb_*.deb: $out"; exit 1; }
deb=${debs[0]}
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes"

files=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for f in ./usr/bin/plumb ./usr/share/man/man1/plumb.1.gz ./usr/share/bash-completion/completions/plumb \
  ./usr/share/zsh/vendor-completions/_plumb ./etc/plumb/plumb.toml ./usr/share/doc/plumb/copyright \
  ./usr/share/doc/plumb/examples/slurm/plumb-healthcheck.sh ./usr/share/doc/plumb/examples/npd/plumb-plugin.json \
  ./usr/share/doc/plumb/examples/prometheus/plumb-alerts.yml \
  ./usr/share/doc/plumb/examples/kubernetes/plumb-exporter-daemonset.yaml \
  ./usr/share/doc/plumb/examples/kubernetes/plumb-agent-daemonset.yaml ./lib/systemd/system/plumb-agent.service; do
  grep -qx -- "$f" <<<"$files" || bad "package lacks $f"
done
if [ -x "$build/plumb-fleet" ]; then
  grep -qx -- ./usr/bin/plumb-fleet <<<"$files" || bad "package lacks ./usr/bin/plumb-fleet (built in $build)"
fi

dpkg-deb -e "$deb" "$tmp/control"
grep -qx /etc/plumb/plumb.toml "$tmp/control/conffiles" 2>/dev/null || bad "/etc/plumb/plumb.toml is not a conffile"
depends=$(dpkg-deb -f "$deb" Depends)
[[ "$depends" == *libc6* ]] || bad "Depends has no libc6 (dpkg-shlibdeps did not run?): '$depends'"
# The Debian libraries plumb links: SQLite (history), Vectorscan (log scan), ISA-L (gzip).
for lib in libsqlite3-0 libvectorscan5 libisal2; do
  [[ "$depends" == *"$lib"* ]] || bad "Depends has no $lib (linked by plumb): '$depends'"
done
echo "Depends: $depends"

dpkg-deb -x "$deb" "$tmp/root"
plumb="$tmp/root/usr/bin/plumb"
# The example configuration parses and changes nothing: plumb reads it from /etc by default.
grep -v '^#' "$tmp/root/etc/plumb/plumb.toml" | grep -q . && bad "plumb.toml has a line that is not a comment"
PLUMB_NO_DEFAULT_CONFIG=1 "$plumb" check --root "$fixture" --format json --config "$tmp/root/etc/plumb/plumb.toml" >"$tmp/report.json"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || bad "extracted plumb check exited $rc"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["tool"]["name"] == "plumb"' "$tmp/report.json" ||
  bad "extracted plumb check wrote no plumb JSON report"
PLUMB_NO_DEFAULT_CONFIG=1 "$plumb" check --print-config >"$tmp/defaults.toml"
grep -v '^#' "$tmp/defaults.toml" | grep -q '=' || bad "plumb check --print-config printed no setting"
grep -v '^#' "$tmp/defaults.toml" | while IFS= read -r line; do
  [ -z "$line" ] || grep -qxF -- "#$line" "$tmp/root/etc/plumb/plumb.toml" || echo "FAIL: plumb.toml lacks '#$line'"
done | grep FAIL && fail=1

zcat "$tmp/root/usr/share/man/man1/plumb.1.gz" | groff -man -Tutf8 -z 2>"$tmp/groff.err" || bad "groff failed"
[ -s "$tmp/groff.err" ] && bad "groff: $(cat "$tmp/groff.err")"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  sim=$(apt-get install --simulate "$deb" 2>&1) || bad "apt-get install --simulate: $sim"
  grep -q "^Inst plumb" <<<"$sim" || bad "apt-get would not install plumb: $sim"
else
  echo "note: not root; apt-get install --simulate skipped"
fi
[ "$fail" = 0 ] && echo "package OK"
exit "$fail"
