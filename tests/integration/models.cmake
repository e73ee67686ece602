# The window's live side without widgets: run controllers and the workspace on the real engine.
kiln_add_test(NAME tst_runcontroller SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_runcontroller.cpp
              LIBS kiln_models LABEL integration TIMEOUT 600)
add_dependencies(tst_runcontroller kiln-sandbox kiln-cli)
