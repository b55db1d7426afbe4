#!/bin/sh
# The words checker must fail on a tree whose comments name a source document, a work issue, a work
# session, a private notes path or the people behind the code, and pass on the allowed uses
# (fuzzer seeds, random seeds, plumb's watch session, upstream issue links, public sources).
set -eu
py=$1; checker=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/src/rules" "$t/docs" "$t/fuzz/corpus/x"
cat > "$t/src/rules/ok.cpp" <<'CPP'
// Seeds in fuzz/corpus/<name>/; the seed corpus of each target; torch.manual_seed(0); --seed TRACE.
// The watch session loop (engine/watch_session); NVIDIA/nccl-tests#149; see pytorch/pytorch/issues/48200.
// Thresholds: a 75 °C safe line (A100 is rated for 85 °C). Source: the NVML API reference.
const char* kDoc = "GPU 利用率平均值低于该值给出警告（85%以上为健康）; 随机种子";
CPP
echo 'the seed corpus says: the seed: x' > "$t/fuzz/corpus/x/seed1"
"$py" "$checker" "$t" > "$t/out" || { echo "checker failed the allowed words:"; cat "$t/out"; exit 1; }
expect() {  # FILE TEXT KIND: the checker must report TEXT in FILE as KIND
  printf '%s\n' "$2" > "$t/$1"
  if "$py" "$checker" "$t" > "$t/out"; then echo "checker passed: $2"; exit 1; fi
  grep -q "^$1:1: $3: " "$t/out" || { echo "wrong report for: $2"; cat "$t/out"; exit 1; }
  rm "$t/$1"
}
expect src/rules/a.cpp "// Thresholds: the seed's 75 °C line" "source document"
expect src/rules/a.cpp '{"(seed: healthy above 85 %)", "（种子：85%以上为健康）"}' "source document"
expect src/rules/a.cpp '"原文案例：吞吐翻倍"' "source document"
expect docs/a.md "Catalogue rows of the L2 watch findings (issue 8)." "work issue"
expect docs/a.md "| target | measured (session 3) | status |" "work session"
expect src/rules/a.cpp "// formats in ../shared/knowledge/nccl.md section 3" "private path"
expect src/rules/a.cpp "// quirks (hta-reference.md §7)" "private path"
expect src/rules/a.cpp "// Host facts: cgroups (owner: host helper A)." "people"
echo ok
