# Watching a live program (docs/performance.md, "Watching a live program"):
# bench/xabview_live.sh BUILD_DIR runs 16 pingpong tasks under abmon, piped
# into xabview under an Xvfb of its own, and reads xabview's --frame-log.
# It runs from the source tree (it starts a private PVM with
# scripts/pvm-vm.sh); `ninja bench` builds what it runs.
if(TARGET xabview AND TARGET abmon AND TARGET pingpong-xab)
  add_dependencies(bench xabview abmon pingpong-xab)
endif()
