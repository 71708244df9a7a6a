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
# are compiled alone (a sanitizer build that fails with "redefinition of"
# or "ambiguous" where the plain build passes wants its source added).  GCC's -Wsubobject-linkage holds a source's own
# classes to a header's rules once it is included in a batch, so it is
# off in a unity build (the plain build keeps it).  C sources (libab's
# feature macros come before their headers) are compiled alone too.
if(NOT CMAKE_UNITY_BUILD)
  return()
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
endif()

set(XAB_UNITY_ALONE
    abmon/src/program_output.cpp
    abmon/src/pvm_tracer_output.cpp
    translators/src/picl_reader.cpp)

# The test drivers share precompiled headers instead (tests/CMakeLists.txt).
set(XAB_UNITY_SOURCE_BY_SOURCE ${PROJECT_SOURCE_DIR}/tests)

function(xab_unity_exclude dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    cmake_path(IS_PREFIX XAB_UNITY_SOURCE_BY_SOURCE ${dir} NORMALIZE test_dir)
    if(test_dir)
      set_property(TARGET ${target} PROPERTY UNITY_BUILD OFF)
      continue()
    endif()
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
