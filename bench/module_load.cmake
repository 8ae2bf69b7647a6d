# bench_module_load: module-load and compile-time benchmark (bench/module_load.c,
# docs/compile-time.md). A C program on Zinc's driver API: needs no nvcc.
# `bench_module_load [N [K]]`; ctest runs a small smoke version.
add_executable(bench_module_load ${CMAKE_CURRENT_LIST_DIR}/module_load.c)
target_compile_options(bench_module_load PRIVATE -O2)
target_link_libraries(bench_module_load PRIVATE cuda m)
set_target_properties(bench_module_load PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME bench.module_load.smoke COMMAND bench_module_load 24 4)
set_tests_properties(bench.module_load.smoke PROPERTIES TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "PASS module_load")
