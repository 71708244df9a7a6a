#!/usr/bin/env bash
# fixture.sh setup|cleanup ROOT SOURCE_DIR: the multihost tests' fixture.
# Every test makes its VM in ROOT/NAME and takes it down when it ends; a
# test CTest killed (a timeout) cannot, so `cleanup` (and `setup`, for a
# run that was itself killed) takes down every VM under ROOT.  cleanup
# fails if a namespace of one of them is left.
set -uo pipefail
what=$1 root=$2 src=$3
mkdir -p "$root"
failed=0
for dir in "$root"/*/; do
  [[ -d $dir ]] || continue
  XAB_HOSTS_QUIET=1 "$src/scripts/pvm-hosts.sh" --dir "${dir%/}" down || failed=1
done
if [[ $what == cleanup ]] && ((failed)); then echo "FAIL: a VM under $root could not be taken down"; exit 1; fi
echo "$what: no VM left under $root"
