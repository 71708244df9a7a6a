# libab's overhead benchmarks (docs/performance.md, "libab").  Each program
# is one source built twice: `-plain` with XAB_DISABLE (xab.h is then only
# pvm3.h) linking PVM alone, `-xab` linking libab.  Same code, same flags:
# the difference between the two is what libab costs.
foreach(prog pingpong libab_record_bench gather loadtask)
  foreach(variant plain xab)
    set(target ${prog}-${variant})
    add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/${prog}.c)
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR}
      C_STANDARD 11 C_EXTENSIONS ON)
    if(variant STREQUAL "plain")
      target_compile_definitions(${target} PRIVATE XAB_DISABLE)
      target_link_libraries(${target} PRIVATE xab::api PVM::gpvm3)
    else()
      target_link_libraries(${target} PRIVATE xab::ab)
    endif()
    add_dependencies(bench ${target})
  endforeach()
endforeach()
