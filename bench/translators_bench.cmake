# Translator throughput (docs/performance.md, "Translators"): a generator of
# large well-formed traces, and translators_bench.sh which times each
# translator on one against `cat` of the same file in the same run.
if(TARGET ab2picl)
  add_executable(translators_gentrace ${CMAKE_CURRENT_SOURCE_DIR}/translators_gentrace.cpp)
  set_target_properties(translators_gentrace PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${XAB_BENCH_DIR})
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/translators_bench.sh ${XAB_BENCH_DIR}/translators_bench.sh COPYONLY)
  add_dependencies(bench translators_gentrace)
endif()
# The scale benchmark (docs/performance.md, "Scale"): every reader's time and
# peak memory on traces of millions of records with clock records.
if(TARGET translators_gentrace)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/scale_bench.sh ${XAB_BENCH_DIR}/scale_bench.sh COPYONLY)
endif()
