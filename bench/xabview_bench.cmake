# xabview's benchmark (docs/performance.md, "xabview"): open a
# million-record trace the way the viewer does (parse + analyses + arrival
# order + spans) and time diagram repaints at full zoom-out, mid and deep
# zoom.  Built only with the viewer.
if(TARGET xab_viewmodels)
  find_package(Qt6 REQUIRED COMPONENTS Gui)
  add_executable(xabview_bench ${CMAKE_CURRENT_SOURCE_DIR}/xabview_bench.cpp)
  target_link_libraries(xabview_bench PRIVATE xab_viewpainters Qt6::Gui)
  set_target_properties(xabview_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR})
  add_dependencies(bench xabview_bench)
endif()
