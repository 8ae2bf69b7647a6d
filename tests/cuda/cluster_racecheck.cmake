# ZINC_CHECK=racecheck on thread block clusters (docs/memcheck.md):
# tests/cuda/cluster_racecheck.cu built once (sm_90, -lineinfo), run once
# per case; each asserts on the report text (CTest cluster_racecheck/<case>,
# label racecheck). Included by tests/CMakeLists.txt after racecheck.cmake
# (needs ZINC_NVCC, zn_runner, zn_env, rc_and). The racy case's report
# must name the DSM_STORE and DSM_LOAD lines (found here at configure time).
set(crc_exe ${cuda_bin}/cluster_racecheck)
add_custom_command(OUTPUT ${crc_exe}
  COMMAND ${ZINC_NVCC} -O2 -lineinfo -arch=sm_90 -o ${crc_exe} ${cuda_src}/cluster_racecheck.cu
  DEPENDS ${cuda_src}/cluster_racecheck.cu
  COMMENT "nvcc cluster_racecheck.cu" VERBATIM)
add_custom_target(cluster_racecheck_program ALL DEPENDS ${crc_exe})

set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${cuda_src}/cluster_racecheck.cu)
file(READ ${cuda_src}/cluster_racecheck.cu crc_text)
foreach(marker DSM_STORE DSM_LOAD)
  string(FIND "${crc_text}" "// ${marker}" pos)
  string(SUBSTRING "${crc_text}" 0 ${pos} before)
  string(REGEX MATCHALL "\n" nl "${before}")
  list(LENGTH nl n)
  math(EXPR crc_${marker} "${n} + 1")
endforeach()
set(crc_src "[^\n]*cluster_racecheck\\.cu")
set(crc_store "Write access at dsm_racy\\(int\\*\\) \\(PTX line [0-9]+\\) in ${crc_src}:${crc_DSM_STORE}")
set(crc_load "Read access at dsm_racy\\(int\\*\\) \\(PTX line [0-9]+\\) in ${crc_src}:${crc_DSM_LOAD}")
# either order: whichever block's access the run met first is named first
set(crc_re_racy "Race reported between (${crc_store}${rc_and} ${crc_load}|${crc_load}${rc_and} ${crc_store}) \\[[0-9]+ hazards?\\]\n=========     threads \\([0-9]+,0,0\\) of cluster rank [01] and \\([0-9]+,0,0\\) of cluster rank [01] \\(block \\([0-7],0,0\\)\\), distributed shared memory of cluster rank 1.*PASS racy.*RACECHECK SUMMARY: 1 hazard displayed")
set(crc_re_clean "PASS clean.*RACECHECK SUMMARY: 0 hazards displayed")
foreach(case clean racy)
  add_test(NAME cluster_racecheck/${case} COMMAND ${zn_runner} ${crc_exe} ${case})
  set_tests_properties(cluster_racecheck/${case} PROPERTIES LABELS "racecheck" TIMEOUT 300
    ENVIRONMENT "${zn_env};ZINC_CHECK=racecheck"
    PASS_REGULAR_EXPRESSION "${crc_re_${case}}" FAIL_REGULAR_EXPRESSION "FAIL ")
endforeach()
set_tests_properties(cluster_racecheck/clean PROPERTIES
  FAIL_REGULAR_EXPRESSION "FAIL |Race reported")
