#!/usr/bin/env bash
# make-network-picture.sh -- docs/img/xabview-network.png: xabview's Network
# tab over a real run on three pseudo-hosts (scripts/pvm-hosts.sh: network,
# UTS and mount namespaces on this machine; root), the demo's workers on
# every host under one abmon with a relay per host, sampled; and
# docs/img/xabview-folded.png: the same run's rows folded by name.
#
#   docs/img/make-network-picture.sh [BUILD_DIR]      (default: build)
#
# Examples:
#   1. docs/img/make-network-picture.sh
#   2. docs/img/make-network-picture.sh build-test
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build=$ROOT/$build
BIN=$build/bin
for p in abmon xabdemo xabview; do
  [[ -x $BIN/$p ]] || { echo "${0##*/}: $BIN/$p is missing: build it first" >&2; exit 2; }
done
HOSTS=$ROOT/scripts/pvm-hosts.sh
WORK=$(mktemp -d /tmp/network-picture.XXXXXX)
export XAB_HOSTS_QUIET=1
cleanup() {
  "$HOSTS" --dir "$WORK/vm" down >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
"$HOSTS" check >/dev/null || { echo "${0##*/}: this machine cannot make pseudo-hosts" >&2; exit 2; }
"$HOSTS" --dir "$WORK/vm" up 3 --bin "$BIN" >/dev/null
(cd "$WORK/vm" && "$HOSTS" --dir "$WORK/vm" run node0 timeout 60 "$BIN/abmon" -q -o "$WORK/demo.trace" -- \
  "$BIN/xabdemo" -n 6 --rounds 40 >/dev/null 2>&1)
# Half-way: messages have flowed between every pair of hosts, tasks still busy.
n=$(grep -vc '^#' "$WORK/demo.trace")
QT_QPA_PLATFORM=offscreen "$BIN/xabview" --no-follow --step $((n / 2)) --tab network --size 1280x800 \
  --screenshot "$ROOT/docs/img/xabview-network.png" "$WORK/demo.trace" 2>/dev/null
echo "wrote docs/img/xabview-network.png"
# The rows folded by name: a row per program on each host.
QT_QPA_PLATFORM=offscreen "$BIN/xabview" --no-follow --step $((n / 2)) --fold name --tab log --size 1280x800 \
  --screenshot "$ROOT/docs/img/xabview-folded.png" "$WORK/demo.trace" 2>/dev/null
echo "wrote docs/img/xabview-folded.png"
