#!/bin/sh
# The unity-name checker must fail when two files of one folder share a file-local name (in an
# anonymous namespace, or static), or a file-local function takes a name a src/ header declares,
# and pass once the names differ.
set -eu
py=$1; checker=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/src/rules" "$t/src/core"
printf 'namespace plumb {\nnamespace {\nstd::string num(double v) { return ""; }\n}  // namespace\n}  // namespace plumb\n' > "$t/src/rules/a.cpp"
printf 'namespace plumb {\nnamespace {\nstruct Row {\n  int x;\n};\n}\nstatic int num(int v) { return v; }\n}  // namespace plumb\n' > "$t/src/rules/b.cpp"
if "$py" "$checker" "$t" > "$t/out"; then echo "checker passed a repeated name"; exit 1; fi
grep -q 'num is file-local in 2 files of one folder: src/rules/a.cpp, src/rules/b.cpp' "$t/out" || { cat "$t/out"; exit 1; }
sed -i 's/static int num/static int count/' "$t/src/rules/b.cpp"
"$py" "$checker" "$t" > "$t/out" || { cat "$t/out"; exit 1; }
printf 'namespace plumb {\nstd::string count(int n);\n}\n' > "$t/src/core/text.h"
if "$py" "$checker" "$t" > "$t/out"; then echo "checker passed a file-local name that a header declares"; exit 1; fi
grep -q 'count is file-local in src/rules/b.cpp and declared in src/core/text.h' "$t/out" || { cat "$t/out"; exit 1; }
echo ok
