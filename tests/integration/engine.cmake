kiln_add_test(NAME tst_searchrun SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_searchrun.cpp
              LIBS kiln_store LABEL integration TIMEOUT 900)
add_dependencies(tst_searchrun kiln-cli)
