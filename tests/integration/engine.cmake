kiln_add_test(NAME tst_searchrun SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_searchrun.cpp
              LIBS kiln_store LABEL integration TIMEOUT 900)
add_dependencies(tst_searchrun kiln-cli)

# --verifier lenient (the naive harness) and kiln-cli rejudge, through the real kiln-cli.
kiln_add_test(NAME tst_leakyverifier SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_leakyverifier.cpp
              LABEL integration TIMEOUT 600)
add_dependencies(tst_leakyverifier kiln-cli)

# docs/workshop.md's seven exercises at small budgets: the direction of each observation.
kiln_add_test(NAME tst_workshop SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_workshop.cpp
              LIBS kiln_engine LABEL integration TIMEOUT 900)
add_dependencies(tst_workshop kiln-cli)
# Its searches judge with confirmations and the timing lock: one function may pass Qt Test's
# default 300 s per function on a cold compile cache.
set_tests_properties(tst_workshop PROPERTIES ENVIRONMENT QTEST_FUNCTION_TIMEOUT=840000)

# fast_p by KernelBench level: a database written by RunStore, read by the real kiln-cli report.
kiln_add_test(NAME tst_kernelbenchreport
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_kernelbenchreport.cpp
                      ${PROJECT_SOURCE_DIR}/tests/kernelbenchdb.h
              LIBS kiln_engine kiln_store LABEL integration TIMEOUT 300)
add_dependencies(tst_kernelbenchreport kiln-cli)

# The agents strategy's roles and the optimisation memory, over the real policy and verifier.
kiln_add_test(NAME tst_agents SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_agents.cpp
              LIBS kiln_engine kiln_policy_offline LABEL integration TIMEOUT 900)
add_dependencies(tst_agents kiln-cli)

# Duplicates reuse the first judgement; the best is confirmed before it counts (real verifier).
kiln_add_test(NAME tst_judgements SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_judgements.cpp
              LIBS kiln_engine LABEL integration TIMEOUT 600)
add_dependencies(tst_judgements kiln-sandbox)

# kiln-cli diagnose on a real offline search: the same findings as RunDiagnosis in-process.
kiln_add_test(NAME tst_diagnose SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_diagnose.cpp
              LIBS kiln_engine LABEL integration TIMEOUT 600)
add_dependencies(tst_diagnose kiln-cli)
