# ZINC_CHECK=memcheck tests (docs/memcheck.md): tests/cuda/memcheck_cases.cu
# built once with -lineinfo, run once per case; each asserts on the report
# (CTest memcheck/<case>, label memcheck). Included by tests/CMakeLists.txt
# after the CUDA test programs (needs ZINC_NVCC, zn_runner, zn_env).
set(mc_exe ${cuda_bin}/memcheck_cases)
add_custom_command(OUTPUT ${mc_exe}
  COMMAND ${ZINC_NVCC} -O2 -lineinfo -I${CMAKE_CURRENT_SOURCE_DIR}/misuse -o ${mc_exe}
          ${cuda_src}/memcheck_cases.cu
  DEPENDS ${cuda_src}/memcheck_cases.cu ${CMAKE_CURRENT_SOURCE_DIR}/misuse/faults_common.h
  COMMENT "nvcc memcheck_cases.cu" VERBATIM)
add_custom_target(memcheck_programs ALL DEPENDS ${mc_exe})

set(mc_at "=========     at")
set(mc_re_past_end "Invalid __global__ write of size 4 bytes.*${mc_at} write_past_end\\(int\\*, int\\) \\(PTX line [0-9]+\\) in [^\n]*memcheck_cases\\.cu:[0-9]+.*by thread \\(232,0,0\\) in block \\(3,0,0\\).*is 0 bytes after the nearest allocation at 0x[0-9a-f]+ of size 4000 bytes")
set(mc_re_far "Invalid __global__ write of size 4 bytes.*${mc_at} store_far\\(int\\*, long long\\) .*by thread \\(0,0,0\\) in block \\(0,0,0\\).*bytes after the nearest allocation")
set(mc_re_shared "Invalid __shared__ write of size 4 bytes.*${mc_at} [^\n]*shared_past_end.*by thread \\(63,0,0\\) in block \\(0,0,0\\).*shared offset 256; the block's shared memory is 256 bytes")
set(mc_re_local "Invalid __local__ write of size 4 bytes.*${mc_at} [^\n]*local_past_end.*by thread \\(0,0,0\\) in block \\(0,0,0\\).*is 0 bytes after the thread's local memory of 32 bytes")
set(mc_re_freed "Invalid __global__ read of size 4 bytes.*${mc_at} [^\n]*read_input.*by thread \\(0,0,0\\) in block \\(0,0,0\\).*inside a freed allocation at 0x[0-9a-f]+ of size 1024 bytes \\(use after free\\)")
set(mc_re_clean "PASS memcheck_clean.*ERROR SUMMARY: 0 errors")
set(mc_re_leak "PASS memcheck_leak.*Leaked 4096 bytes at 0x[0-9a-f]+ \\(cuMemAlloc\\).*LEAK SUMMARY: 4096 bytes leaked in 1 allocations")

foreach(case past_end far shared local freed clean leak)
  set(mode memcheck)
  if(case STREQUAL "leak")
    set(mode memcheck,leaks)
  endif()
  set(pass "${mc_re_${case}}")
  if(NOT case STREQUAL "clean" AND NOT case STREQUAL "leak")
    string(APPEND pass ".*PASS ${case}")
  endif()
  add_test(NAME memcheck/${case} COMMAND ${zn_runner} ${mc_exe} ${case})
  set_tests_properties(memcheck/${case} PROPERTIES LABELS "memcheck" TIMEOUT 300
    ENVIRONMENT "${zn_env};ZINC_CHECK=${mode}"
    PASS_REGULAR_EXPRESSION "${pass}" FAIL_REGULAR_EXPRESSION "FAIL ")
endforeach()
set_tests_properties(memcheck/clean PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL |Invalid __")

# faults_oob (tests/misuse) under memcheck: its one-past-the-end case must
# now be detected (docs/faults.md). Not built in ZINC_SANITIZE builds.
if(NOT ZINC_SANITIZE AND TARGET fault_programs)
  add_test(NAME memcheck/faults_oob COMMAND ${zn_runner}
           ${CMAKE_CURRENT_BINARY_DIR}/misuse/faults/faults_oob)
  set_tests_properties(memcheck/faults_oob PROPERTIES LABELS "memcheck" TIMEOUT 300
    ENVIRONMENT "${zn_env};ZINC_CHECK=memcheck"
    PASS_REGULAR_EXPRESSION "store one past the end: launch cudaSuccess, synchronize cudaErrorIllegalAddress \\(detected\\).*PASS faults_oob"
    FAIL_REGULAR_EXPRESSION "FAIL ")
endif()
