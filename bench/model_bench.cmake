# The trace model's read benchmark (docs/performance.md, "Trace model").
add_executable(model_read_bench ${CMAKE_CURRENT_SOURCE_DIR}/model_read_bench.cpp)
target_link_libraries(model_read_bench PRIVATE xab::model)
set_target_properties(model_read_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR})
add_dependencies(bench model_read_bench)

# Compressed traces (docs/performance.md, "Compressed traces"): abmon's own
# output, plain and zstd, and the model reading each back.
find_package(Boost REQUIRED)
add_executable(trace_compress_bench ${CMAKE_CURRENT_SOURCE_DIR}/trace_compress_bench.cpp
               ${PROJECT_SOURCE_DIR}/abmon/src/trace_output.cpp)
target_include_directories(trace_compress_bench PRIVATE ${PROJECT_SOURCE_DIR}/abmon/src)
target_link_libraries(trace_compress_bench PRIVATE xab::model Boost::headers Zstd::zstd)
set_target_properties(trace_compress_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR})
add_dependencies(bench trace_compress_bench)

# The window of a long run (docs/performance.md, "A run of any length").
add_executable(model_window_bench ${CMAKE_CURRENT_SOURCE_DIR}/model_window_bench.cpp)
target_link_libraries(model_window_bench PRIVATE xab::model)
set_target_properties(model_window_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR})
add_dependencies(bench model_window_bench)
