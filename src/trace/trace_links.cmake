# trace_links.cmake: makes LIB_DIR/trace a complete lib folder for
# `zinc trace` (which points ZINC_LIB_DIR and the LD_AUDIT library at it):
# every Zinc library of LIB_DIR except libcuda appears there as a symlink.
file(GLOB libs RELATIVE ${LIB_DIR} ${LIB_DIR}/lib*.so*)
foreach(name ${libs})
  if(name MATCHES "^libcuda\\.so" OR name STREQUAL "libzinc_ld.so")
    continue()
  endif()
  if(NOT IS_DIRECTORY ${LIB_DIR}/${name})
    file(CREATE_LINK ../${name} ${LIB_DIR}/trace/${name} SYMBOLIC)
  endif()
endforeach()
