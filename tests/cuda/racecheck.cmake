# ZINC_CHECK=racecheck tests (docs/memcheck.md, racecheck section):
# tests/cuda/racecheck_cases.cu built once with -lineinfo, run once per case;
# each asserts on the report text (CTest racecheck/<case>, label racecheck).
# Included by tests/CMakeLists.txt after the CUDA test programs (needs
# ZINC_NVCC, zn_runner, zn_env). The reports must name the source lines
# of the RACE_STORE, RACE_TREE, WAW_STORE, BYTE_STORE and BYTE_LOAD
# comments in racecheck_cases.cu (found here at configure time).
set(rc_exe ${cuda_bin}/racecheck_cases)
add_custom_command(OUTPUT ${rc_exe}
  COMMAND ${ZINC_NVCC} -O2 -lineinfo -o ${rc_exe} ${cuda_src}/racecheck_cases.cu
  DEPENDS ${cuda_src}/racecheck_cases.cu
  COMMENT "nvcc racecheck_cases.cu" VERBATIM)
add_custom_target(racecheck_programs ALL DEPENDS ${rc_exe})

set(rc_src "[^\n]*racecheck_cases\\.cu")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${cuda_src}/racecheck_cases.cu)
file(READ ${cuda_src}/racecheck_cases.cu rc_text)
foreach(marker RACE_STORE RACE_TREE WAW_STORE BYTE_STORE BYTE_LOAD)
  string(FIND "${rc_text}" "// ${marker}" pos)
  string(SUBSTRING "${rc_text}" 0 ${pos} before)
  string(REGEX MATCHALL "\n" nl "${before}")
  list(LENGTH nl n)
  math(EXPR rc_${marker} "${n} + 1")
endforeach()
set(rc_and "\n=========     and")
# A race's two accesses are named in the order the run met them, which
# depends on how the block's warps interleave (issue #8: a warp's first
# shared store after a barrier lets the other warps run), so either order.
set(rc_tree_read "Read access at sum_racy\\(int const\\*, int\\*\\) \\(PTX line [0-9]+\\) in ${rc_src}:${rc_RACE_TREE}")
set(rc_store_write "Write access at sum_racy\\(int const\\*, int\\*\\) \\(PTX line [0-9]+\\) in ${rc_src}:${rc_RACE_STORE}")
set(rc_pair_missing "(${rc_tree_read}${rc_and} ${rc_store_write}|${rc_store_write}${rc_and} ${rc_tree_read})")
set(rc_re_missing "Race reported between ${rc_pair_missing} \\[[0-9]+ hazards?\\]\n=========     threads \\([0-9]+,0,0\\) and \\([0-9]+,0,0\\) in block \\([0-3],0,0\\).*PASS missing.*RACECHECK SUMMARY: 1 hazard displayed")
set(rc_re_waw "Race reported between Write access at last_writer\\(int\\*\\) \\(PTX line [0-9]+\\) in ${rc_src}:${rc_WAW_STORE}${rc_and} Write access at last_writer\\(int\\*\\) \\(PTX line [0-9]+\\) in ${rc_src}:${rc_WAW_STORE} \\[[0-9]+ hazards?\\].*PASS waw.*RACECHECK SUMMARY: 1 hazard displayed")
set(rc_re_clean "PASS clean.*RACECHECK SUMMARY: 0 hazards displayed")
set(rc_re_atomics "PASS atomics.*RACECHECK SUMMARY: 0 hazards displayed")
# bytes of one word written by four warps: per-byte shadow, no report; the
# racy variant reports its byte-sized read/write pair
set(rc_re_bytes "PASS bytes.*RACECHECK SUMMARY: 0 hazards displayed")
set(rc_byte_read "Read access at byte_neighbours\\(int\\*, int\\) [^\n]*:${rc_BYTE_LOAD}")
set(rc_byte_write "Write access at [^\n]*:${rc_BYTE_STORE}")
set(rc_re_bytes_race "Race reported between (${rc_byte_read}${rc_and} ${rc_byte_write}|${rc_byte_write}${rc_and} ${rc_byte_read}) \\[32 hazards\\].*PASS bytes_race")
# memcheck and racecheck together: the race is still found, no bad access
set(rc_re_both "Race reported between ${rc_pair_missing} .*PASS missing.*RACECHECK SUMMARY: 1 hazard displayed.*ERROR SUMMARY: 0 errors")

foreach(case missing clean waw atomics bytes bytes_race both)
  set(mode racecheck)
  set(arg ${case})
  if(case STREQUAL "both")
    set(mode memcheck,racecheck)
    set(arg missing)
  endif()
  add_test(NAME racecheck/${case} COMMAND ${zn_runner} ${rc_exe} ${arg})
  set_tests_properties(racecheck/${case} PROPERTIES LABELS "racecheck" TIMEOUT 300
    ENVIRONMENT "${zn_env};ZINC_CHECK=${mode}"
    PASS_REGULAR_EXPRESSION "${rc_re_${case}}" FAIL_REGULAR_EXPRESSION "FAIL ")
endforeach()
set_tests_properties(racecheck/clean racecheck/atomics racecheck/bytes PROPERTIES
  FAIL_REGULAR_EXPRESSION "FAIL |Race reported")
