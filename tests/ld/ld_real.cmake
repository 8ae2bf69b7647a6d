# ld.real_rpath: an app linked against NVIDIA's real stub libcuda.so and
# libcublas.so.13 through DT_RPATH (tests/ld/test_ld_real.sh). Included
# from src/ld/CMakeLists.txt; needs the CUDA toolkit's libraries.
set(zn_cuda_root /usr/local/cuda)
if(NOT EXISTS ${zn_cuda_root}/lib64/stubs/libcuda.so OR
   NOT EXISTS ${zn_cuda_root}/lib64/libcublas.so OR
   NOT EXISTS ${zn_cuda_root}/include/cublas_v2.h)
  message(WARNING "CUDA toolkit libraries not found: test ld.real_rpath is SKIPPED")
  return()
endif()
add_executable(ld_app_real_nvidia ${zn_ld_tests}/app_real_nvidia.c)
target_include_directories(ld_app_real_nvidia PRIVATE ${zn_cuda_root}/include)
# by path, so CMake adds no rpath of its own; RPATH (old tags) names both
target_link_libraries(ld_app_real_nvidia PRIVATE ${zn_cuda_root}/lib64/libcublas.so
                      ${zn_cuda_root}/lib64/stubs/libcuda.so)
target_link_options(ld_app_real_nvidia PRIVATE -Wl,--disable-new-dtags
  -Wl,-rpath,${zn_cuda_root}/lib64/stubs:${zn_cuda_root}/lib64)
set_target_properties(ld_app_real_nvidia PROPERTIES SKIP_BUILD_RPATH ON
                      RUNTIME_OUTPUT_DIRECTORY ${zn_ld_bin})
# Under ZINC_SANITIZE Zinc's libraries are instrumented and the app is not:
# the sanitizer runtimes are preloaded into the app (only).
set(zn_real_preload "")
if(ZINC_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE zn_real_asan OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libubsan.so
                  OUTPUT_VARIABLE zn_real_ubsan OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(zn_real_preload "${zn_real_asan} ${zn_real_ubsan}")
endif()
add_test(NAME ld.real_rpath COMMAND sh ${zn_ld_tests}/test_ld_real.sh
         $<TARGET_FILE:zinc> $<TARGET_FILE:ld_app_real_nvidia> "${zn_real_preload}")
set_tests_properties(ld.real_rpath PROPERTIES TIMEOUT 120 LABELS ld
  ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0" FAIL_REGULAR_EXPRESSION "FAIL")
