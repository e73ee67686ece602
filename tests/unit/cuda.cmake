# CUDA backend units that need neither nvcc nor a GPU: launch geometry of device-only
# candidates, the device probe's output, ptxas / nvcc / NVRTC logs, the CUDA entry shim.
kiln_add_test(NAME tst_cudaparsing SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_cudaparsing.cpp
              LIBS kiln_verifier kiln_tasks LABEL unit TIMEOUT 60)
# NVML through dlopen (who else used a GPU during a timing), the probe's GPU UUIDs and the GPU
# lock's name: no GPU or driver needed, the GPU's part skips itself without one.
kiln_add_test(NAME tst_gpuactivity SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_gpuactivity.cpp
              LIBS kiln_verifier kiln_tasks LABEL unit TIMEOUT 60)
