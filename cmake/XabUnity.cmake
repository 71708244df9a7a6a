# Unity builds (-DCMAKE_UNITY_BUILD=ON): each target's C++ sources are
# compiled a batch at a time, so the headers they share are parsed, and
# the inline functions and templates they share are compiled, once a
# batch instead of once a source.  scripts/test.sh builds every
# configuration this way (ASan+UBSan compiles xab_model in 43 s of CPU
# against 73 s source by source; at -O2, 46 s against 101 s); a build
# without the option (scripts/setup.sh's, a developer's) stays source by
# source, which proves that every source compiles on its own and rebuilds
# only the source changed.  scripts/lint.sh reads a source's command from
# its batch's.
#
# A batch is one translation unit, and what one source keeps to itself
# (an anonymous namespace, a static) is seen by the next: the sources
# below define the same such names as another source of their target and
# are compiled alone (a unity build that fails with "redefinition of" or
# "ambiguous" where a build source by source passes wants its source
# added).  The test drivers are batched too, each with its precompiled
# header (tests/CMakeLists.txt): 291 -> 184 CPU s for all their sources.
# GCC's -Wsubobject-linkage holds a source's own classes to a header's
# rules once it is included in a batch, so it is off in a unity build (a
# build source by source keeps it).  C sources (libab's feature macros
# come before their headers) are compiled alone too.
if(NOT CMAKE_UNITY_BUILD)
  return()
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
endif()

set(XAB_UNITY_ALONE
    abmon/src/program_output.cpp
    abmon/src/pvm_tracer_output.cpp
    translators/src/picl_reader.cpp
    # The test drivers' helpers and constants, each file's own.
    tests/demo/test_step.cpp
    tests/libab/test_libab_unseen.cpp
    tests/libab/test_libab_world.cpp
    tests/model/clock_evidence_test.cpp
    tests/model/clock_test.cpp
    tests/model/compensate_test.cpp
    tests/model/compressed_source_test.cpp
    tests/model/replay_correct_test.cpp
    tests/model/retime_in_place_test.cpp
    tests/model/wait_states_test.cpp
    tests/tools/abstat_follow_test.cpp
    tests/tools/abstat_report_test.cpp
    tests/tools/abstat_why_pvm_test.cpp
    tests/tools/abstat_why_test.cpp
    tests/translators/otf2_test.cpp
    tests/xabview/overview_test.cpp
    tests/xabview/report_panels_test.cpp)

function(xab_unity_exclude dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(sources ${target} SOURCES)
    if(NOT sources)
      continue()
    endif()
    get_target_property(source_dir ${target} SOURCE_DIR)
    foreach(source IN LISTS sources)
      if(source MATCHES "\\$<")
        continue()
      endif()
      cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${source_dir} OUTPUT_VARIABLE path)
      cmake_path(RELATIVE_PATH path BASE_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE relative)
      if(source MATCHES "\\.c$" OR relative IN_LIST XAB_UNITY_ALONE)
        set_source_files_properties(${path} TARGET_DIRECTORY ${target}
                                    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endforeach()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    xab_unity_exclude(${subdir})
  endforeach()
endfunction()
# Once every part has made its targets.
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL xab_unity_exclude ${PROJECT_SOURCE_DIR})
