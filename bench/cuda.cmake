# CUDA verifier figures on the GPU machine: bench_cuda_verifier [--copies N] [--repeats N]
# [--evals N] [--out FILE]; bench_context_rate [--processes 1,4,8,16] (fresh contexts a second);
# bench/cuda/ncu_agreement.sh compares timings with Nsight Compute.
if(TARGET kiln-cuda-sandbox)
    add_executable(bench_cuda_verifier ${CMAKE_CURRENT_LIST_DIR}/cuda/bench_cuda_verifier.cpp)
    target_link_libraries(bench_cuda_verifier PRIVATE kiln_verifier kiln_tasks kiln_options
                                                      kiln_policy_offline)
    target_compile_definitions(bench_cuda_verifier PRIVATE KILN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    add_dependencies(bench_cuda_verifier kiln-sandbox kiln-cuda-sandbox)
    # Fresh contexts a second on one GPU: the bound of single-use candidate sandboxes.
    add_executable(bench_context_rate ${CMAKE_CURRENT_LIST_DIR}/cuda/bench_context_rate.cpp)
    target_link_libraries(bench_context_rate PRIVATE CUDA::cudart)
endif()
