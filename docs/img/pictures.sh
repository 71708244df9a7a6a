# pictures.sh -- sourced by the docs/img/make-*-pictures.sh scripts: what
# each needs before its first run.  The caller sets ROOT (the source tree)
# and calls
#
#   pictures_begin NAME BUILD_DIR [PROGRAM...]
#
# which sets BIN (BUILD_DIR/bin; a relative BUILD_DIR is taken from ROOT),
# OUT (docs/img) and WORK (a fresh /tmp/NAME.XXXXXX), checks that each
# PROGRAM is built, starts an X server of its own on a free display (Xvfb;
# Qt's offscreen platform when Xvfb is missing) and a private PVM virtual
# machine (scripts/pvm-vm.sh) whose environment it exports.  On exit
# everything goes: abmon (ABMON_PID, interrupted so that it ends its
# trace), the other processes the caller started (their pids in
# PICTURE_PIDS), the virtual machine, the X server and WORK.
# shellcheck shell=bash disable=SC2034  # BIN, OUT: the caller's

ABMON_PID="" PICTURE_PIDS="" XVFB_PID=""

pictures_begin() {
  local name=$1 build=$2 program
  shift 2
  [[ $build = /* ]] || build=$ROOT/$build
  BIN=$build/bin
  OUT=$ROOT/docs/img
  for program in "$@"; do
    [[ -x $BIN/$program ]] || { echo "${0##*/}: $BIN/$program is missing: build it first" >&2; exit 2; }
  done
  WORK=$(mktemp -d "/tmp/$name.XXXXXX")
  trap pictures_end EXIT
  start_display "$WORK"
  XAB_VM_QUIET=1 "$ROOT/scripts/pvm-vm.sh" start "$WORK/vm" "$BIN" >/dev/null
  # shellcheck disable=SC1091
  source "$WORK/vm/env"
}

pictures_end() {
  local p
  for p in $PICTURE_PIDS; do kill "$p" 2>/dev/null || true; done
  if [[ -n $ABMON_PID ]]; then kill -INT "$ABMON_PID" 2>/dev/null || true; fi
  "$ROOT/scripts/pvm-vm.sh" stop "$WORK/vm" >/dev/null 2>&1 || true
  if [[ -n $XVFB_PID ]]; then kill "$XVFB_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}

# start_display WORKDIR: exports DISPLAY and QT_QPA_PLATFORM; sets XVFB_PID
# (empty without Xvfb).
start_display() {
  local work=$1 n
  XVFB_PID=""
  if command -v Xvfb >/dev/null; then
    for n in $(seq $((200 + $$ % 300)) $((240 + $$ % 300))); do
      [[ -e /tmp/.X11-unix/X$n || -e /tmp/.X$n-lock ]] && continue
      Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
      XVFB_PID=$!
      for _ in $(seq 50); do [[ -e /tmp/.X11-unix/X$n ]] && break; sleep 0.1; done
      if [[ -e /tmp/.X11-unix/X$n ]]; then export DISPLAY=:$n QT_QPA_PLATFORM=xcb; return 0; fi
      XVFB_PID=""
    done
  fi
  export QT_QPA_PLATFORM=offscreen
}
