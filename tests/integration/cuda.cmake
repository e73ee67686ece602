# The CUDA backend's compilation paths, which need the toolkit but no GPU: nvcc through the
# compile sandbox, NVRTC through kiln-cuda-sandbox --compile-only. Skipped without the toolkit.
if(TARGET kiln-cuda-sandbox)
    kiln_add_test(NAME tst_cudacompile SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_cudacompile.cpp
                  LIBS kiln_verifier kiln_tasks LABEL integration TIMEOUT 900)
    add_dependencies(tst_cudacompile kiln-sandbox kiln-cuda-sandbox)
endif()
