# kiln-cli doctor, through the real binary.
kiln_add_test(NAME tst_doctor SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_doctor.cpp
              LABEL integration TIMEOUT 300)
add_dependencies(tst_doctor kiln-cli)

# The install layout, desktop entry, metainfo, man pages and completion.
kiln_add_test(NAME tst_packaging SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_packaging.cpp
              LIBS kiln_strategies LABEL integration TIMEOUT 600)
add_dependencies(tst_packaging kiln-cli kiln kiln_icons kiln_man_pages kiln_test_dummy_strategy)
# Both install the build tree (cmake --install, cpack): one at a time.
set_tests_properties(tst_packaging PROPERTIES RESOURCE_LOCK install_tree)

# The .deb installed with apt into a fresh Debian 12 root (packaging/test-package.sh): needs
# root, debootstrap and the Debian mirror; exit status 77 (skipped) without them.
add_test(NAME tst_package COMMAND ${PROJECT_SOURCE_DIR}/packaging/test-package.sh ${CMAKE_BINARY_DIR})
set_tests_properties(tst_package PROPERTIES LABELS "package" TIMEOUT 1500 SKIP_RETURN_CODE 77
                                            RESOURCE_LOCK install_tree)
