# The workbench window's rules (src/models), tested without any widget.
kiln_add_test(NAME tst_windowrules SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_windowrules.cpp
              LIBS kiln_models LABEL unit)
