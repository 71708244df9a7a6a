# display.sh -- sourced by the docs/img/make-*-pictures.sh scripts: an X
# server of their own on a free display (Xvfb), else Qt's offscreen
# platform.  start_display WORKDIR sets XVFB_PID (empty without Xvfb) and
# exports DISPLAY and QT_QPA_PLATFORM; the caller's cleanup kills XVFB_PID.
# shellcheck shell=bash disable=SC2034  # XVFB_PID: the caller's

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
