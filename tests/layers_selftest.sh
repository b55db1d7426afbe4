#!/bin/sh
# The layer checker must fail on a tree where core/ includes cli/ and pass once the include is gone.
set -eu
py=$1; checker=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/docs" "$t/src/core" "$t/src/cli"
printf '# x\n\n## Layers\n\n```\ncli   top\ncore  bottom\n```\n' > "$t/docs/development.md"
echo '#pragma once' > "$t/src/cli/x.h"
printf '#include "cli/x.h"\n' > "$t/src/core/a.h"
if "$py" "$checker" "$t" > "$t/out"; then echo "checker passed a core -> cli include"; exit 1; fi
grep -q 'src/core/a.h:1: core/ includes cli/x.h' "$t/out" || { cat "$t/out"; exit 1; }
printf '#include "core/a.h"\n' > "$t/src/cli/y.h"; : > "$t/src/core/a.h"
"$py" "$checker" "$t" > "$t/out" || { cat "$t/out"; exit 1; }
mkdir "$t/src/extra"
if "$py" "$checker" "$t" > "$t/out"; then echo "checker passed an unlisted folder"; exit 1; fi
echo ok
