# What a memory budget's cut costs the GUI thread's views (docs/xabview.md,
# "Long runs: a memory budget"): xabview_cut_bench.  Built only with the viewer.
if(TARGET xab_viewwidgets)
  find_package(Qt6 REQUIRED COMPONENTS Widgets)
  add_executable(xabview_cut_bench ${CMAKE_CURRENT_SOURCE_DIR}/xabview_cut_bench.cpp)
  target_link_libraries(xabview_cut_bench PRIVATE xab_viewwidgets Qt6::Widgets)
  set_target_properties(xabview_cut_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR})
  add_dependencies(bench xabview_cut_bench)
endif()
