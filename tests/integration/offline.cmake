# Offline policy variant spaces: every space compiles (g++, and nvcc -arch=sm_90 when present),
# sampled CPU variants are numerically right on odd shapes, injected defects do what they claim.
if(TARGET kiln_policy_offline)
    kiln_add_test(NAME tst_variantspace
                  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_variantspace.cpp
                  LIBS kiln_policy_offline kiln_verifier ${CMAKE_DL_LIBS} LABEL integration
                  TIMEOUT 300)
    if(TARGET kiln-cuda-sandbox)
        add_dependencies(tst_variantspace kiln-cuda-sandbox)
    endif()
endif()
# The Triton variant spaces of KernelBench problems: every combination parses and passes the
# static screen; the policy writes, and refuses, KernelBench candidates (the GPU judges them in
# tst_torchtriton).
if(TARGET kiln_policy_offline)
    kiln_add_test(NAME tst_tritonspaces
                  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_tritonspaces.cpp
                  LIBS kiln_policy_offline kiln_verifier kiln_tasks LABEL integration TIMEOUT 300)
endif()
