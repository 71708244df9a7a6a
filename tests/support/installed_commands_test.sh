#!/usr/bin/env bash
# Installs xab from BUILD_DIR into a scratch prefix and checks what a user
# of an installed xab relies on for every command it installs: a man page
# that renders without warnings, --help and --version that exit 0, and a
# --version line that names xab, and a man page that documents every
# option --help lists.
set -uo pipefail
build_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null || { echo "install failed"; exit 1; }
export QT_QPA_PLATFORM=offscreen  # xabview parses its options before any window
failed=0
fail() { echo "FAIL: $*"; failed=1; }
count=0
for exe in "$work/prefix/bin"/*; do
  name=${exe##*/}
  count=$((count + 1))
  page=$work/prefix/share/man/man1/$name.1
  if [[ ! -f $page ]]; then
    fail "$name: no man page installed (man1/$name.1)"
  else
    # From the man tree's top, where a page's `.so man1/other.1` is resolved.
    warnings=$(cd "$work/prefix/share/man" && MANROFFSEQ='' MANWIDTH=80 man --warnings -l "man1/$name.1" 2>&1 >/dev/null)
    [[ -z $warnings ]] || fail "$name: man page warnings: $warnings"
  fi
  help=$(timeout 20 "$exe" --help 2>&1) || fail "$name --help: exit $?"
  # Every option --help lists is in the man page too.
  if [[ -f $page ]]; then
    rendered=$(cd "$work/prefix/share/man" && MANWIDTH=200 man -l "man1/$name.1" 2>/dev/null)
    while read -r opt; do
      grep -qE -- "(^|[^a-z0-9-])$opt([^a-z0-9-]|$)" <<<"$rendered" || fail "$name: --help lists $opt, the man page does not"
    done < <(grep -oE -- '(^|[ ,[])--[a-z][a-z0-9-]*' <<<"$help" | grep -oE -- '--[a-z0-9-]+' | sort -u)
  fi
  version=$(timeout 20 "$exe" --version 2>&1) || fail "$name --version: exit $?"
  [[ $version == "$name (xab) "* || $version == *" (xab) "* ]] || fail "$name --version said: ${version%%$'\n'*}"
done
((count >= 8)) || fail "only $count commands installed"
((failed)) || echo "$count installed commands: man page, --help and --version all present"
exit "$failed"
