# Golden-file tests: the formatters' and kiln-cli's whole output for a fixed workspace, compared
# with tests/golden/expected/. scripts/refresh-golden.sh rebuilds them and rewrites the expected
# files (KILN_REFRESH_GOLDEN=1) when an output is meant to change.
set(golden_fixture ${CMAKE_CURRENT_LIST_DIR}/goldenworkspace.cpp
                   ${CMAKE_CURRENT_LIST_DIR}/goldenworkspace.h ${CMAKE_CURRENT_LIST_DIR}/goldenfile.h)
kiln_add_test(NAME tst_goldenformatters
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_goldenformatters.cpp ${golden_fixture}
              LIBS kiln_models LABEL unit TIMEOUT 120)
# report, export and eval through the real kiln-cli (eval judges with the real kiln-sandbox).
kiln_add_test(NAME tst_goldencli
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_goldencli.cpp ${golden_fixture}
              LIBS kiln_store LABEL integration TIMEOUT 600)
add_dependencies(tst_goldencli kiln-cli kiln-sandbox)
