# Task library: size expressions, the task.json loader (every malformed branch), the
# shipped tasks and the range hidden shapes are drawn from.
kiln_add_test(NAME tst_sizeexpression SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_sizeexpression.cpp
              LIBS kiln_tasks LABEL unit TIMEOUT 60)
kiln_add_test(NAME tst_taskloader SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_taskloader.cpp
              LIBS kiln_tasks LABEL unit TIMEOUT 60)
kiln_add_test(NAME tst_shaperange SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_shaperange.cpp
              LIBS kiln_tasks LABEL unit TIMEOUT 60)
