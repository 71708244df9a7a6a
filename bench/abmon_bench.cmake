# abmon's formatter benchmark (docs/performance.md, "abmon").
add_executable(abmon_format_bench ${CMAKE_CURRENT_SOURCE_DIR}/abmon_format_bench.cpp)
target_link_libraries(abmon_format_bench PRIVATE xab::abmon_format)
set_target_properties(abmon_format_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR})
add_dependencies(bench abmon_format_bench)
