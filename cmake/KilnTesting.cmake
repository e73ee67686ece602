# kiln_add_test(NAME tst_foo SOURCES ... LIBS ... LABEL unit|integration|gui|cuda)
# One Qt Test executable per unit; the label lets CI and developers pick a slice.
function(kiln_add_test)
    cmake_parse_arguments(T "" "NAME;LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
    if(NOT T_LABEL)
        message(FATAL_ERROR "kiln_add_test(${T_NAME}): LABEL is required")
    endif()
    add_executable(${T_NAME} ${T_SOURCES})
    target_link_libraries(${T_NAME} PRIVATE kiln_options Qt6::Test ${T_LIBS})
    # Helpers shared by several suites (tests/*.h).
    target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
    target_compile_definitions(${T_NAME} PRIVATE
        KILN_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KILN_BINARY_DIR="${CMAKE_BINARY_DIR}")
    add_test(NAME ${T_NAME} COMMAND ${T_NAME})
    if(NOT T_TIMEOUT)
        set(T_TIMEOUT 300)
    endif()
    set(env "QT_QPA_PLATFORM=offscreen")
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABEL}" TIMEOUT ${T_TIMEOUT}
                                              ENVIRONMENT "${env}")
    if(T_LABEL STREQUAL "cuda")
        # CUDA execution tests call QSKIP without a GPU; ctest reports them as skipped.
        set_tests_properties(${T_NAME} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP   :")
    endif()
endfunction()
