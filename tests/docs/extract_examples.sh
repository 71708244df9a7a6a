#!/usr/bin/env bash
# Prints every command the documentation shows, one per line, as
#   FILE<TAB>COMMAND
# from README.md and docs/*.md (lines of ```sh blocks) and from the EXAMPLES
# section of every man page in docs/man (lines between .nf and .fi, and .B
# lines).  Comments after '  #' and blank lines are left out; a line ending
# in '\' is joined to the next.
set -euo pipefail
ROOT=${1:?usage: extract_examples.sh SOURCE_DIR}
cd "$ROOT"

markdown() {
  awk -v f="$1" '
    /^[[:space:]]*```/ { if (inblock) { inblock = 0 } else { inblock = ($0 ~ /```(sh|bash)[[:space:]]*$/) } next }
    inblock { print f "\t" $0 }' "$1"
}

manpage() {
  awk -v f="$1" '
    /^\.SH/ { ex = ($0 ~ /^\.SH "?EXAMPLES?"?/); nf = 0; next }
    !ex { next }
    /^\.nf/ { nf = 1; next }
    /^\.fi/ { nf = 0; next }
    nf && !/^\./ { print f "\t" $0; next }
    /^\.B / { sub(/^\.B /, ""); gsub(/^"|"$/, ""); print f "\t" $0 }' "$1" |
    sed -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/\\e/\\/g' -e 's/\\&//g'
}

{
  for f in README.md docs/*.md; do markdown "$f"; done
  for f in docs/man/*.[0-9]; do manpage "$f"; done
} | awk -F'\t' '
  { line = $2
    sub(/^[[:space:]]+/, "", line)
    sub(/^\$ /, "", line)
    if (cont != "") { line = cont " " line; cont = "" }
    if (line ~ /\\$/) { sub(/\\$/, "", line); cont = line; next }
    sub(/[[:space:]][[:space:]]+#.*$/, "", line)
    sub(/[[:space:]]+$/, "", line)
    if (line == "" || line ~ /^#/) next
    print $1 "\t" line }'
