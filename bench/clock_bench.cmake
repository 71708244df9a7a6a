# Global time: the fit against a known skew, docs/performance.md "Global time".
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/clock_skew.sh ${XAB_BENCH_DIR}/clock_skew.sh COPYONLY)
