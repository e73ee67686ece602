# Compiles each shipped CPU reference with the candidate flags and checks it against an
# independent long-double computation.
kiln_add_test(NAME tst_cpureferences SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_cpureferences.cpp
              LIBS kiln_tasks ${CMAKE_DL_LIBS} LABEL integration TIMEOUT 180)
