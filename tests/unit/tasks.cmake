# Task library: size expressions, the task.json loader (every malformed branch) and the
# shipped tasks.
kiln_add_test(NAME tst_sizeexpression SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_sizeexpression.cpp
              LIBS kiln_tasks LABEL unit TIMEOUT 60)
kiln_add_test(NAME tst_taskloader SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_taskloader.cpp
              LIBS kiln_tasks LABEL unit TIMEOUT 60)
