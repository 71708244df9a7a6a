# f2x's benchmark (docs/performance.md, "f2x"): the cost libf2x adds to a
# call on top of libab, measured through the Fortran entry points.
if(TARGET xab::f2x)
  add_executable(f2x_call_bench ${CMAKE_CURRENT_SOURCE_DIR}/f2x_call_bench.c)
  target_link_libraries(f2x_call_bench PRIVATE xab::f2x)
  set_target_properties(f2x_call_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR}
    C_STANDARD 11 C_EXTENSIONS OFF)
  add_dependencies(bench f2x_call_bench)
endif()
