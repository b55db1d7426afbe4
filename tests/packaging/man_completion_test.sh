#!/usr/bin/env bash
# The manual page and the bash completion the build wrote (build/<preset>/packaging/) against the
# binary's own command list: every command of `plumb` alone is in the page and completes.
# Usage: man_completion_test.sh PLUMB_BINARY PACKAGING_DIR
set -uo pipefail
plumb=$1
dir=$2
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}

# The commands `plumb` alone lists (its --help: "  NAME  help" under "Subcommands:").
mapfile -t cmds < <("$plumb" | sed -n '/^Subcommands:/,/^$/p' | awk 'NF > 1 && $1 != "Subcommands:" {print $1}')
[ "${#cmds[@]}" -ge 10 ] || bad "plumb alone lists ${#cmds[@]} commands: ${cmds[*]}"

# The files come from the target plumb_packaging_files (built by `all`): without them every check
# below would fail for one reason.
for f in plumb.1.gz plumb.bash _plumb; do
  if [ ! -f "$dir/$f" ]; then
    echo "FAIL: $dir/$f missing: build the target plumb_packaging_files (or all) first"
    exit 1
  fi
done

# The page in the package is the page `plumb man` writes now.
page=$(zcat "$dir/plumb.1.gz")
[ "$page" = "$("$plumb" man)" ] || bad "$dir/plumb.1.gz differs from plumb man (stale build?)"
for c in "${cmds[@]}"; do
  grep -q "^\.SH \"PLUMB ${c//-/\\\\-}\"" <<<"$page" || bad "manual page has no section for $c"
done
# Valid roff: groff reports nothing, and man renders it.
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z <<<"$page" 2>&1)
  [ -z "$warnings" ] || bad "groff: $warnings"
fi
if command -v man >/dev/null; then
  text=$(MANPAGER=cat MANWIDTH=100 man -l "$dir/plumb.1.gz" 2>&1) || bad "man -l failed: $text"
  grep -q "plumb check" <<<"$text" || bad "man -l output has no 'plumb check'"
fi

# bash: the script parses and completes commands, --format values and bench names.
bash -n "$dir/plumb.bash" || bad "plumb.bash does not parse"
complete_words() {  # complete_words WORD... : COMPREPLY for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _plumb; echo "${COMPREPLY[*]}"' _ "$dir/plumb.bash" "$@"
}
got=$(complete_words plumb ch)
[ "$got" = "check" ] || bad "plumb ch<TAB> gave '$got'"
got=$(complete_words plumb "")
for c in "${cmds[@]}"; do
  [[ " $got " == *" $c "* ]] || bad "plumb <TAB> lacks $c (got '$got')"
done
# --format: exactly the values `plumb check --help` names.
want=$("$plumb" check --help | sed -n 's/.*output format: \([a-z|]*\).*/\1/p' | tr '|' ' ')
[ -n "$want" ] || bad "plumb check --help names no formats"
got=$(complete_words plumb check --format "")
[ "$got" = "$want" ] || bad "plumb check --format <TAB> gave '$got', want '$want'"
got=$(complete_words plumb check -f j)
[ "$got" = "json" ] || bad "plumb check -f j<TAB> gave '$got'"
got=$(complete_words plumb check --for)
[ "$got" = "--format" ] || bad "plumb check --for<TAB> gave '$got'"
got=$(complete_words plumb bench me)
[ "$got" = "membw memory" ] || [ "$got" = "membw" ] || bad "plumb bench me<TAB> gave '$got'"
got=$(complete_words plumb fleet re)
[ "$got" = "report" ] || bad "plumb fleet re<TAB> gave '$got'"
got=$(complete_words plumb completion "")
[ "$got" = "bash zsh" ] || bad "plumb completion <TAB> gave '$got'"

# zsh: the script declares itself for plumb and parses (when zsh is installed).
head -1 "$dir/_plumb" | grep -q '^#compdef plumb$' || bad "_plumb has no #compdef line"
[ "$(cat "$dir/_plumb")" = "$("$plumb" completion zsh)" ] || bad "_plumb differs from plumb completion zsh"
if command -v zsh >/dev/null; then
  zsh -n "$dir/_plumb" || bad "_plumb does not parse"
else
  echo "note: zsh not installed; _plumb checked as text only"
fi
[ "$fail" = 0 ] && echo "manual page: ${#cmds[@]} commands; completion: commands, options and values"
exit "$fail"
