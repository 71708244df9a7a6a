# The trace model's read benchmark (docs/performance.md, "Trace model").
add_executable(model_read_bench ${CMAKE_CURRENT_SOURCE_DIR}/model_read_bench.cpp)
target_link_libraries(model_read_bench PRIVATE xab::model)
set_target_properties(model_read_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR})
add_dependencies(bench model_read_bench)
