# Offline policy: renders variant-space samples for the GPU speed benchmark
# (bench/offline/run_h200.sh compiles them with nvcc and times them with variant_harness.cu).
if(TARGET kiln_policy_offline)
    add_executable(bench_offline_render ${CMAKE_CURRENT_LIST_DIR}/offline/render.cpp)
    target_link_libraries(bench_offline_render PRIVATE kiln_policy_offline kiln_options)
endif()
