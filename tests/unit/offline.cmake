# Offline (simulated) policy: template language and policy behaviour.
if(TARGET kiln_policy_offline)
    kiln_add_test(NAME tst_templateengine
                  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_templateengine.cpp
                  LIBS kiln_policy_offline LABEL unit TIMEOUT 60)
    kiln_add_test(NAME tst_offlinepolicy
                  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_offlinepolicy.cpp
                  LIBS kiln_policy_offline Qt6::Concurrent LABEL unit TIMEOUT 120)
    kiln_add_test(NAME tst_hostlaunchwriter
                  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_hostlaunchwriter.cpp
                  LIBS kiln_policy_offline LABEL unit TIMEOUT 60)
    # Defects of KernelBench Triton candidates, checked with Python's ast and the static screen.
    kiln_add_test(NAME tst_pythondefects
                  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_pythondefects.cpp
                  LIBS kiln_policy_offline kiln_verifier kiln_tasks LABEL unit TIMEOUT 120)
endif()
