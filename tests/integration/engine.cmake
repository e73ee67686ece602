kiln_add_test(NAME tst_searchrun SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_searchrun.cpp
              LIBS kiln_store LABEL integration TIMEOUT 900)
add_dependencies(tst_searchrun kiln-cli)

# --verifier lenient (the naive harness) and kiln-cli rejudge, through the real kiln-cli.
kiln_add_test(NAME tst_leakyverifier SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_leakyverifier.cpp
              LABEL integration TIMEOUT 600)
add_dependencies(tst_leakyverifier kiln-cli)
