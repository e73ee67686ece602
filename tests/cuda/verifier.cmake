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
