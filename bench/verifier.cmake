# Verifier overhead and throughput: bench_verifier [--evals N] [--task NAME]
add_executable(bench_verifier ${CMAKE_CURRENT_LIST_DIR}/verifier/bench_verifier.cpp)
target_link_libraries(bench_verifier PRIVATE kiln_verifier kiln_tasks kiln_options)
target_compile_definitions(bench_verifier PRIVATE KILN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(bench_verifier kiln-sandbox)
