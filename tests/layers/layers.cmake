# The layer table of docs/architecture.md, checked over the source tree: `layers` fails on a
# forbidden include; `layers_self_test` plants one of each kind in a copy and expects each caught.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
get_target_property(kiln_widget_dirs Qt6::Widgets INTERFACE_INCLUDE_DIRECTORIES)
list(FILTER kiln_widget_dirs INCLUDE REGEX "QtWidgets$")
list(GET kiln_widget_dirs 0 kiln_widget_dir)
add_test(NAME layers COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/checklayers.py
                             ${PROJECT_SOURCE_DIR} ${kiln_widget_dir})
add_test(NAME layers_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/checklayers.py --self-test
                 ${PROJECT_SOURCE_DIR} ${kiln_widget_dir})
set_tests_properties(layers layers_self_test PROPERTIES LABELS unit TIMEOUT 120)
