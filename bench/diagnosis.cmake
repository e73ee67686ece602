# The run diagnosis on a 100,000-candidate run (docs/performance.md, "Run diagnosis").
add_executable(kiln_bench_diagnosis ${CMAKE_CURRENT_LIST_DIR}/diagnosis/bench_diagnosis.cpp
                                    ${PROJECT_SOURCE_DIR}/tests/models/syntheticrun.cpp
                                    ${PROJECT_SOURCE_DIR}/tests/models/syntheticrun.h)
target_include_directories(kiln_bench_diagnosis PRIVATE ${PROJECT_SOURCE_DIR}/tests/models)
target_link_libraries(kiln_bench_diagnosis PRIVATE kiln_engine kiln_store)
