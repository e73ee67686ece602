# GUI benchmarks (docs/performance.md, "Workbench"): time to first paint of a 100,000-candidate
# run, frame time while panning and zooming a 10,000-node tree, resident memory.
# kiln_bench_gui also generates synthetic databases: kiln_bench_gui generate FILE N [--crossover].
add_executable(kiln_bench_gui ${CMAKE_CURRENT_LIST_DIR}/gui/bench_gui.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/gui/largerunload.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/gui/livearrivals.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/gui/plotdrawing.cpp
                              ${PROJECT_SOURCE_DIR}/tests/models/syntheticrun.cpp
                              ${PROJECT_SOURCE_DIR}/tests/models/syntheticrun.h)
target_include_directories(kiln_bench_gui PRIVATE ${PROJECT_SOURCE_DIR}/tests/models)
target_link_libraries(kiln_bench_gui PRIVATE kiln_gui kiln_store kiln_options)
