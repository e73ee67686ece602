# End-to-end verifier tests through the real kiln-sandbox (CPU backend).
kiln_add_test(NAME tst_verifiercpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_verifiercpu.cpp
              LIBS kiln_verifier kiln_tasks kiln_policies LABEL integration TIMEOUT 400)
add_dependencies(tst_verifiercpu kiln-sandbox)

# What candidate code reaches from inside kiln-sandbox (reads, /proc, executable memory).
kiln_add_test(NAME tst_sandboxconfinement
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_sandboxconfinement.cpp
              LIBS kiln_verifier_harness LABEL integration TIMEOUT 120)
add_dependencies(tst_sandboxconfinement kiln-sandbox)

# The engine's clock bound under stalls no process explains: one is timed again, one in every
# attempt is timer_inconsistent.
kiln_add_test(NAME tst_clockgap SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_clockgap.cpp
              LIBS kiln_verifier kiln_tasks LABEL integration TIMEOUT 120)
add_dependencies(tst_clockgap kiln-sandbox)
set_tests_properties(tst_clockgap PROPERTIES RUN_SERIAL TRUE)
