# FindZstd -- Debian's libzstd (libzstd-dev): gives Zstd::zstd.
find_path(ZSTD_INCLUDE_DIR zstd.h)
find_library(ZSTD_LIBRARY zstd)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Zstd REQUIRED_VARS ZSTD_INCLUDE_DIR ZSTD_LIBRARY)
if(Zstd_FOUND AND NOT TARGET Zstd::zstd)
  add_library(Zstd::zstd UNKNOWN IMPORTED)
  set_target_properties(Zstd::zstd PROPERTIES IMPORTED_LOCATION ${ZSTD_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${ZSTD_INCLUDE_DIR})
endif()
mark_as_advanced(ZSTD_INCLUDE_DIR ZSTD_LIBRARY)
