# Offline policy variant spaces: every space compiles (g++, and nvcc -arch=sm_90 when present),
# sampled CPU variants are numerically right on odd shapes, injected defects do what they claim.
if(TARGET kiln_policy_offline)
    kiln_add_test(NAME tst_variantspace
                  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_variantspace.cpp
                  LIBS kiln_policy_offline ${CMAKE_DL_LIBS} LABEL integration TIMEOUT 300)
endif()
