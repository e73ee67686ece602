# End-to-end CUDA verifier tests through kiln-cuda-sandbox over tests/data/candidates/cuda.
# Without a usable GPU the suite skips itself (QSKIP), which ctest reports as skipped.
kiln_add_test(NAME tst_verifiercuda SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_verifiercuda.cpp
              LIBS kiln_verifier kiln_tasks Qt6::Test LABEL cuda TIMEOUT 1500)
add_dependencies(tst_verifiercuda kiln-sandbox)
if(TARGET kiln-cuda-sandbox)
    add_dependencies(tst_verifiercuda kiln-cuda-sandbox)
endif()

# The PyTorch backend end to end (KernelBench problems in tests/data/kernelbench): needs python3
# with torch and a GPU, so it carries the cuda label and skips itself elsewhere.
kiln_add_test(NAME tst_torchbackend SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_torchbackend.cpp
              LIBS kiln_verifier kiln_tasks Qt6::Test LABEL cuda TIMEOUT 1500)
add_dependencies(tst_torchbackend kiln-sandbox kiln-torch-sandbox)

# The GPU shared with a process that is not Kiln's (kiln-gpu-busy, built with the toolkit's
# nvcc): honest kernels pass without side_stream_work, a side-stream cheat is still flagged.
# Needs a GPU and NVML, so it carries the cuda label and skips itself elsewhere.
kiln_add_test(NAME tst_gpudisturbance SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_gpudisturbance.cpp
              LIBS kiln_verifier kiln_tasks Qt6::Test LABEL cuda TIMEOUT 900)
add_dependencies(tst_gpudisturbance kiln-sandbox)
set(kiln_gpu_busy "")
if(TARGET kiln-cuda-sandbox AND CUDAToolkit_NVCC_EXECUTABLE)
    add_dependencies(tst_gpudisturbance kiln-cuda-sandbox)
    set(kiln_gpu_busy ${CMAKE_CURRENT_BINARY_DIR}/kiln-gpu-busy)
    add_custom_command(OUTPUT ${kiln_gpu_busy}
        COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -O2 -o ${kiln_gpu_busy}
                ${CMAKE_CURRENT_LIST_DIR}/gpubusy.cu
        DEPENDS ${CMAKE_CURRENT_LIST_DIR}/gpubusy.cu
        COMMENT "Building kiln-gpu-busy" VERBATIM)
    # Not named like the file: Ninja's per-folder target aliases would clash with it.
    add_custom_target(gpu_busy_helper DEPENDS ${kiln_gpu_busy})
    add_dependencies(tst_gpudisturbance gpu_busy_helper)
endif()
target_compile_definitions(tst_gpudisturbance PRIVATE KILN_GPU_BUSY="${kiln_gpu_busy}")

# What candidate code reaches from inside kiln-cuda-sandbox (reads, /proc): needs a GPU, so it
# carries the cuda label and skips itself elsewhere.
kiln_add_test(NAME tst_cudaconfinement SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_cudaconfinement.cpp
              LIBS kiln_verifier_harness Qt6::Test LABEL cuda TIMEOUT 300)
if(TARGET kiln-cuda-sandbox)
    add_dependencies(tst_cudaconfinement kiln-cuda-sandbox)
endif()

# Triton candidates of the KernelBench problems in a Triton run: python3 with torch, Triton and
# a GPU, so it carries the cuda label and skips itself elsewhere.
kiln_add_test(NAME tst_torchtriton SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_torchtriton.cpp
              LIBS kiln_verifier kiln_tasks Qt6::Test LABEL cuda TIMEOUT 1200)
add_dependencies(tst_torchtriton kiln-sandbox kiln-torch-sandbox)

# The offline policy's Triton variants of three KernelBench problems, and the defects it injects
# into them, judged on a GPU in a Triton run (skipped without torch, Triton or a GPU).
kiln_add_test(NAME tst_tritonvariants SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_tritonvariants.cpp
              LIBS kiln_verifier kiln_tasks kiln_policy_offline Qt6::Test LABEL cuda TIMEOUT 1200)
add_dependencies(tst_tritonvariants kiln-sandbox kiln-torch-sandbox)

# kiln-cli profile end to end (Nsight Compute on a passing candidate and its reference): needs a
# GPU and ncu, so it carries the cuda label and skips itself elsewhere.
kiln_add_test(NAME tst_profile SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_profile.cpp
              LIBS kiln_engine kiln_store LABEL cuda TIMEOUT 900)
add_dependencies(tst_profile kiln-cli kiln-sandbox)
if(TARGET kiln-cuda-sandbox)
    add_dependencies(tst_profile kiln-cuda-sandbox)
endif()
