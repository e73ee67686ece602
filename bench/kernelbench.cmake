# KernelBench evaluations with cold builds and a warm reference, by each way of building inline
# extensions: bench_kernelbench_evals --tasks DIR [--ways torch,kiln] [--repeats N] FILE...
add_executable(bench_kernelbench_evals ${CMAKE_CURRENT_LIST_DIR}/kernelbench/bench_kernelbench_evals.cpp)
target_link_libraries(bench_kernelbench_evals PRIVATE kiln_verifier kiln_tasks)
add_dependencies(bench_kernelbench_evals kiln-sandbox kiln-torch-sandbox)
