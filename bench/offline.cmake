# Offline policy: renders variant-space samples for the GPU speed benchmark
# (bench/offline/run_h200.sh compiles them with nvcc and times them with variant_harness.cu).
if(TARGET kiln_policy_offline)
    add_executable(bench_offline_render ${CMAKE_CURRENT_LIST_DIR}/offline/render.cpp)
    target_link_libraries(bench_offline_render PRIVATE kiln_policy_offline kiln_options)
endif()
# How often offline CUDA candidates fail to compile, and how often their refinements compile:
# the verifier's compile stage, no GPU needed (bench_cuda_compile_study [samples] [turns] ...).
if(TARGET kiln_policy_offline AND TARGET kiln-cuda-sandbox)
    add_executable(bench_cuda_compile_study ${CMAKE_CURRENT_LIST_DIR}/offline/cuda_compile_study.cpp)
    target_link_libraries(bench_cuda_compile_study PRIVATE kiln_policy_offline kiln_verifier
                                                           kiln_options)
    add_dependencies(bench_cuda_compile_study kiln-sandbox kiln-cuda-sandbox)
endif()
