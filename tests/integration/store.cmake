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
