# FindPVM -- PVM 3.4 from Debian's pvm-dev.
# Gives PVM::pvm3 (libpvm3) and PVM::gpvm3 (group library, which needs libpvm3).
find_path(PVM_INCLUDE_DIR pvm3.h)
find_library(PVM_PVM3_LIBRARY pvm3)
find_library(PVM_GPVM3_LIBRARY gpvm3)
find_library(PVM_FPVM3_LIBRARY fpvm3)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PVM REQUIRED_VARS PVM_INCLUDE_DIR PVM_PVM3_LIBRARY PVM_GPVM3_LIBRARY)
if(PVM_FOUND AND NOT TARGET PVM::pvm3)
  add_library(PVM::pvm3 UNKNOWN IMPORTED)
  set_target_properties(PVM::pvm3 PROPERTIES IMPORTED_LOCATION ${PVM_PVM3_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${PVM_INCLUDE_DIR})
  add_library(PVM::gpvm3 UNKNOWN IMPORTED)
  set_target_properties(PVM::gpvm3 PROPERTIES IMPORTED_LOCATION ${PVM_GPVM3_LIBRARY}
                        INTERFACE_LINK_LIBRARIES PVM::pvm3)
  if(PVM_FPVM3_LIBRARY)
    add_library(PVM::fpvm3 UNKNOWN IMPORTED)
    set_target_properties(PVM::fpvm3 PROPERTIES IMPORTED_LOCATION ${PVM_FPVM3_LIBRARY}
                          INTERFACE_LINK_LIBRARIES PVM::gpvm3)
  endif()
endif()
mark_as_advanced(PVM_INCLUDE_DIR PVM_PVM3_LIBRARY PVM_GPVM3_LIBRARY PVM_FPVM3_LIBRARY)
