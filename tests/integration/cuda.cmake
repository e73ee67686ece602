# The CUDA backend's compilation paths, which need the toolkit but no GPU: nvcc through the
# compile sandbox, NVRTC through kiln-cuda-sandbox --compile-only. Skipped without the toolkit.
if(TARGET kiln-cuda-sandbox)
    kiln_add_test(NAME tst_cudacompile SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_cudacompile.cpp
                  LIBS kiln_verifier kiln_tasks LABEL integration TIMEOUT 900)
    add_dependencies(tst_cudacompile kiln-sandbox kiln-cuda-sandbox)
endif()

# The network namespace a profiled sandbox shares with Nsight Compute (no GPU needed).
if(TARGET kiln-cuda-sandbox)
    kiln_add_test(NAME tst_privatenetwork SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_privatenetwork.cpp
                  LIBS Qt6::Network LABEL integration TIMEOUT 60)
    add_dependencies(tst_privatenetwork kiln-cuda-sandbox)
endif()
