# Workbench window (src/app): view tests on a run made by the real engine (kiln-cli run, when it
# is built), the kiln command line, and --screenshot of every view.
kiln_add_test(NAME tst_mainwindow
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mainwindow.cpp
                      ${PROJECT_SOURCE_DIR}/tests/models/syntheticrun.cpp
              LIBS kiln_gui kiln_store LABEL gui TIMEOUT 600)
target_include_directories(tst_mainwindow PRIVATE ${PROJECT_SOURCE_DIR}/tests/models)
kiln_add_test(NAME tst_commandlineoptions
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_commandlineoptions.cpp
              LIBS kiln_gui LABEL gui)
# The screenshots come from the real executable; kiln-cli (built by the `all` target) makes the
# fixture when it is in bin/.
add_dependencies(tst_mainwindow kiln)
# Starting and steering runs from the window, on the real engine and sandboxes.
kiln_add_test(NAME tst_liverun SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_liverun.cpp
              LIBS kiln_gui kiln_store LABEL gui TIMEOUT 900)
add_dependencies(tst_liverun kiln kiln-cli kiln-sandbox)
# Both use QStandardPaths' test mode, so they share one QSettings file (the launcher's last
# settings): run them one after the other.
set_tests_properties(tst_mainwindow tst_liverun PROPERTIES RESOURCE_LOCK kiln_test_settings)
# The Plots panel and `kiln --plot` on runs made by the real engine.
kiln_add_test(NAME tst_plotspanel SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_plotspanel.cpp
              LIBS kiln_gui kiln_store LABEL gui TIMEOUT 600)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/tst_plotspanel.cpp PROPERTIES
                            COMPILE_OPTIONS -UQT_NO_FOREACH) # qcustomplot.h
add_dependencies(tst_plotspanel kiln kiln-cli kiln-sandbox)
