# Verifier units: data-driven, no sandbox needed (tst_staticscreen runs g++ once;
# tst_screenevasion runs g++ on every CPU candidate of tests/data/candidates).
foreach(unit inputgenerator freshinputs outputchecker staticscreen screenevasion adaptivetiming
             verdictrules bufferlayout compilecache devicelock cpuactivity engineclockbound
             correctnessloop)
    kiln_add_test(NAME tst_${unit} SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_${unit}.cpp
                  LIBS kiln_verifier kiln_tasks LABEL unit TIMEOUT 120)
endforeach()
# The sandbox's seccomp filter on sockets, compiled in from src/sandbox (Linux only).
kiln_add_test(NAME tst_socketfilter
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_socketfilter.cpp
                      ${PROJECT_SOURCE_DIR}/src/sandbox/isolation.cpp
              LABEL unit)
target_include_directories(tst_socketfilter PRIVATE ${PROJECT_SOURCE_DIR}/src/sandbox)
