# Search strategies (plugins/strategies): each driven by a fake world of deterministic results.
set(_kiln_strategy_tests
    tst_bestofnstrategy:kiln_strategy_best_of_n
    tst_refinestrategy:kiln_strategy_refine
    tst_beamstrategy:kiln_strategy_beam
    tst_greedystrategy:kiln_strategy_greedy
    tst_mctsstrategy:kiln_strategy_mcts
    tst_evolvestrategy:kiln_strategy_evolve
    tst_twophasestrategy:kiln_strategy_two_phase
    tst_strategyregistry:kiln_strategies
    tst_strategycomparison:kiln_strategies
)
foreach(entry ${_kiln_strategy_tests})
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 name)
    list(GET parts 1 lib)
    kiln_add_test(NAME ${name} SOURCES ${CMAKE_CURRENT_LIST_DIR}/strategies/${name}.cpp
                  ${CMAKE_CURRENT_LIST_DIR}/strategies/fakeworld.h LIBS ${lib} LABEL unit TIMEOUT 60)
    target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/strategies)
endforeach()

# A dynamic strategy plugin in its own folder, for the registry's directory scan.
add_library(kiln_test_dummy_strategy MODULE
    ${CMAKE_CURRENT_LIST_DIR}/strategies/dummystrategyplugin.cpp
    ${CMAKE_CURRENT_LIST_DIR}/strategies/dummystrategyplugin.h)
target_link_libraries(kiln_test_dummy_strategy PRIVATE kiln_strategy_api kiln_options Qt6::Core)
set_target_properties(kiln_test_dummy_strategy PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-plugins/strategies)
add_dependencies(tst_strategyregistry kiln_test_dummy_strategy)
target_compile_definitions(tst_strategyregistry PRIVATE
    KILN_TEST_STRATEGY_PLUGIN_DIR="${CMAKE_BINARY_DIR}/test-plugins/strategies")
