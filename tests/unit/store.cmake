# Run store (src/store): records, refusal of foreign files, migrations.
kiln_add_test(NAME tst_runstore SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_runstore.cpp
              LIBS kiln_store SQLite::SQLite3 LABEL unit)
kiln_add_test(NAME tst_storemigration SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_storemigration.cpp
              LIBS kiln_store SQLite::SQLite3 LABEL unit)
