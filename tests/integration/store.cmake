# Run store (src/store): crash consistency under SIGKILL and a reader beside a writer.
add_executable(store_writer ${CMAKE_CURRENT_LIST_DIR}/store_writer.cpp)
target_link_libraries(store_writer PRIVATE kiln_options kiln_store Qt6::Core)

kiln_add_test(NAME tst_storecrash SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_storecrash.cpp
              LIBS kiln_store SQLite::SQLite3 LABEL integration TIMEOUT 120)
add_dependencies(tst_storecrash store_writer)
target_compile_definitions(tst_storecrash PRIVATE
    STORE_WRITER_PATH="$<TARGET_FILE:store_writer>")

kiln_add_test(NAME tst_storeconcurrency SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_storeconcurrency.cpp
              LIBS kiln_store LABEL integration TIMEOUT 120)

# A database with a valid header and damaged pages, refused by the store and by every kiln-cli
# command that opens one (exit 2, the file untouched).
kiln_add_test(NAME tst_damageddatabase
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_damageddatabase.cpp
                      ${PROJECT_SOURCE_DIR}/tests/golden/goldenworkspace.cpp
              LIBS kiln_store LABEL integration TIMEOUT 300)
add_dependencies(tst_damageddatabase kiln-cli kiln-sandbox)
