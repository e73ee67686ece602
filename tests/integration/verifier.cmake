# End-to-end verifier tests through the real kiln-sandbox (CPU backend).
kiln_add_test(NAME tst_verifiercpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_verifiercpu.cpp
              LIBS kiln_verifier kiln_tasks LABEL integration TIMEOUT 400)
add_dependencies(tst_verifiercpu kiln-sandbox)
