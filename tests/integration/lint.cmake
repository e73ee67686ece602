# Problem lint end to end: the built-in tasks and a weak one through kiln-sandbox, kiln-cli's
# lint-tasks, tasks and import-kernelbench, and (with torch) the KernelBench-style problems of
# tests/data/kernelbench/lint through kiln-torch-sandbox on torch's CPU device.
kiln_add_test(NAME tst_tasklint SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_tasklint.cpp
              LIBS kiln_verifier kiln_tasks LABEL integration TIMEOUT 600)
add_dependencies(tst_tasklint kiln-cli kiln-sandbox kiln-torch-sandbox)
