# Readers' peak memory on a trace that names 100,000 tasks once each
# (docs/performance.md, "Readers' memory"): readers_memory.sh runs every
# reader (abstat, xabview offscreen, the translators) under /usr/bin/time.
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/readers_memory.sh ${XAB_BENCH_DIR}/readers_memory.sh COPYONLY)
