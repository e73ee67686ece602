kiln_add_test(NAME tst_coveragemetrics SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_coveragemetrics.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_budgetledger SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_budgetledger.cpp
              LIBS kiln_engine LABEL unit)
kiln_add_test(NAME tst_runarguments SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_runarguments.cpp
              LIBS kiln_engine LABEL unit)
