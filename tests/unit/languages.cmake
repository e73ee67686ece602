# The kernel languages' facts: detection, kernel names, trace names. No Python, no compiler.
kiln_add_test(NAME tst_kernellanguages SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_kernellanguages.cpp
              LIBS kiln_languages LABEL unit TIMEOUT 60)
