# xab_pkg_config(NAME): the pkg-config module cmake/NAME.pc.in twice.
#  - BUILD/NAME.pc, for PKG_CONFIG_PATH=BUILD: the build's libraries
#    (BUILD/lib), the source tree's headers (libab's and protocol's), the
#    generated Fortran header;
#  - the installed one (relocatable: paths from its own place), written to
#    BUILD/pkgconfig-install/ and installed to LIBDIR/pkgconfig.
function(xab_pkg_config name)
  set(XAB_PC_PREFIX ${CMAKE_BINARY_DIR})
  set(XAB_PC_LIBDIR ${CMAKE_BINARY_DIR}/lib)
  set(XAB_PC_INCLUDEDIR ${PROJECT_SOURCE_DIR}/libab/include)
  set(XAB_PC_CFLAGS "-I${PROJECT_SOURCE_DIR}/libab/include -I${PROJECT_SOURCE_DIR}/protocol/include")
  set(XAB_PC_FORTRAN_INCLUDEDIR ${CMAKE_BINARY_DIR}/include/xab)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${name}.pc.in ${CMAKE_BINARY_DIR}/${name}.pc @ONLY)
  set(XAB_PC_PREFIX "\${pcfiledir}/../..")
  set(XAB_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(XAB_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  set(XAB_PC_CFLAGS "-I\${includedir}")
  set(XAB_PC_FORTRAN_INCLUDEDIR "\${includedir}/xab")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${name}.pc.in ${CMAKE_BINARY_DIR}/pkgconfig-install/${name}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig-install/${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
