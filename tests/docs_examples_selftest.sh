#!/bin/sh
# The docs-example checker must fail on a misspelt option, an unknown command and a TOML example
# that does not load, and pass once they are fixed.
set -eu
py=$1; checker=$2; plumb=$3; root=$4
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/docs"
printf '# x\n\n```sh\nplumb check --fromat json\nplumb chek\n```\n' > "$t/README.md"
printf '# y\n\n```toml\n[thresholds]\nno_such_key = 1\n```\n' > "$t/docs/y.md"
if "$py" "$checker" "$plumb" "$t" "$root" > "$t/out"; then echo "checker passed bad examples"; cat "$t/out"; exit 1; fi
grep -q 'README.md:4: `plumb check` has no option --fromat' "$t/out" || { cat "$t/out"; exit 1; }
grep -q 'README.md:5: `plumb chek` is not a plumb command' "$t/out" || { cat "$t/out"; exit 1; }
grep -q 'docs/y.md:3: TOML example does not load' "$t/out" || { cat "$t/out"; exit 1; }
printf '# x\n\n```sh\nplumb check --format json\n```\n' > "$t/README.md"
printf '# y\n\n```toml\n[thresholds]\n"gpu.temperature_warn_c" = 80\n```\n' > "$t/docs/y.md"
"$py" "$checker" "$plumb" "$t" "$root" > "$t/out" || { cat "$t/out"; exit 1; }
echo ok
