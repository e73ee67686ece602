kiln_add_test(NAME tst_coveragemetrics SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_coveragemetrics.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_budgetledger SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_budgetledger.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_runarguments SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_runarguments.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_fastpmetrics SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_fastpmetrics.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_searchsession SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_searchsession.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_spooldirectory SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_spooldirectory.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_optimisationmemory
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_optimisationmemory.cpp
              LIBS kiln_engine kiln_policy_offline LABEL unit)
kiln_add_test(NAME tst_sourcefingerprint SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_sourcefingerprint.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_speedupinterval SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_speedupinterval.cpp
              LIBS kiln_core LABEL unit)
kiln_add_test(NAME tst_baselinewatch SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_baselinewatch.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_rundiagnosis SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_rundiagnosis.cpp
              LIBS kiln_engine LABEL unit)
# Nsight Compute report tables read into a profile's key metrics (src/engine/profile).
kiln_add_test(NAME tst_nsightmetrics SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_nsightmetrics.cpp
              LIBS kiln_engine LABEL unit)
