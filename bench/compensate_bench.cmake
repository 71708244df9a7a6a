# Intrusion compensation: a master/worker program with fixed
# compute phases, built plain and with libab (docs/performance.md,
# "Intrusion compensation"); tests/tools uses it too.
foreach(variant plain xab)
  set(target mworker-${variant})
  add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/mworker.c)
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR} C_STANDARD 11 C_EXTENSIONS ON)
  if(variant STREQUAL "plain")
    target_compile_definitions(${target} PRIVATE XAB_DISABLE)
    target_link_libraries(${target} PRIVATE xab::api PVM::gpvm3)
  else()
    target_link_libraries(${target} PRIVATE xab::ab)
  endif()
  add_dependencies(bench ${target})
endforeach()
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/compensate_bench.sh ${XAB_BENCH_DIR}/compensate_bench.sh COPYONLY)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/sched_trace.sh ${XAB_BENCH_DIR}/sched_trace.sh COPYONLY)
# A send to a socket read on another core, timed as libab times its sends
# to abmon: does it cost CPU outside that window?
add_executable(untimed_send ${CMAKE_CURRENT_SOURCE_DIR}/untimed_send.c)
set_target_properties(untimed_send PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR} C_STANDARD 11 C_EXTENSIONS ON)
find_package(Threads REQUIRED)
target_link_libraries(untimed_send PRIVATE Threads::Threads)
add_dependencies(bench untimed_send)
