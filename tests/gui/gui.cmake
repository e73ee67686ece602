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
# Issue 36's window: edits and runs bound to their database, the launcher, the start page, help
# and the plots' legend, readout and CSV, on runs made by the real engine.
kiln_add_test(NAME tst_windowreach SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_windowreach.cpp
              LIBS kiln_gui kiln_store LABEL gui TIMEOUT 600)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/tst_windowreach.cpp PROPERTIES
                            COMPILE_OPTIONS -UQT_NO_FOREACH) # qcustomplot.h
add_dependencies(tst_windowreach kiln-cli kiln-sandbox)
set_tests_properties(tst_windowreach PROPERTIES RESOURCE_LOCK kiln_test_settings)
# Workshop mode: each exercise of docs/workshop.md through the window, at a small budget.
kiln_add_test(NAME tst_workshopwindow SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_workshopwindow.cpp
              LIBS kiln_gui kiln_store LABEL gui TIMEOUT 1200)
add_dependencies(tst_workshopwindow kiln-sandbox)
# The window driven with real X input (XTest) under an Xvfb the test starts: needs libXtst.
find_library(KILN_XTST_LIBRARY Xtst)
find_library(KILN_X11_LIBRARY X11)
if(KILN_XTST_LIBRARY AND KILN_X11_LIBRARY)
    kiln_add_test(NAME tst_realinput SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_realinput.cpp
                          ${CMAKE_CURRENT_LIST_DIR}/xserver.cpp
                  LIBS kiln_gui kiln_store ${KILN_XTST_LIBRARY} ${KILN_X11_LIBRARY}
                  LABEL gui TIMEOUT 600)
    target_include_directories(tst_realinput PRIVATE ${PROJECT_SOURCE_DIR}/tests)
    set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/tst_realinput.cpp PROPERTIES
                                COMPILE_OPTIONS -UQT_NO_FOREACH) # qcustomplot.h
    add_dependencies(tst_realinput kiln-cli kiln-sandbox)
    set_tests_properties(tst_realinput PROPERTIES RESOURCE_LOCK kiln_test_settings)
endif()
