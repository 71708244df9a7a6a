# Precompiled headers: the system headers (Qt's, Boost.Asio's, spdlog's,
# Catch2's, the standard library's) a target's sources share are parsed
# once a build, not once a source.  Qt's widget headers alone take about
# 3 s of CPU to parse, more than most of the viewer's sources themselves:
# with them precompiled a widget source compiles in half the time (4.6 s
# against 2.3 s of CPU for event_log_panel.cpp at -O2).  A source keeps its
# own includes, so a build without precompiled headers
# (-DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON) is the same code.
#
# xab_precompile(TARGET header...): the headers, for the target's C++
# sources only (a target may hold C); `>` closes a generator expression,
# hence $<ANGLE-R>.
function(xab_precompile target)
  set(list)
  foreach(header IN LISTS ARGN)
    string(REPLACE ">" "$<ANGLE-R>" header "${header}")
    list(APPEND list "$<$<COMPILE_LANGUAGE:CXX>:${header}>")
  endforeach()
  target_precompile_headers(${target} PRIVATE ${list})
endfunction()
