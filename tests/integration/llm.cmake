# The LLM policy against a real local HTTP server (a socket, real libcurl) replaying provider
# formats and hostile responses. Timeouts are kept small so these finish in seconds.
kiln_add_test(NAME tst_llmclient SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_llmclient.cpp
              ${CMAKE_CURRENT_LIST_DIR}/scriptedhttpserver.h ${CMAKE_CURRENT_LIST_DIR}/llmtestdata.h
              LIBS kiln_policies LABEL integration TIMEOUT 120)
kiln_add_test(NAME tst_llmpolicy SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_llmpolicy.cpp
              ${CMAKE_CURRENT_LIST_DIR}/scriptedhttpserver.h ${CMAKE_CURRENT_LIST_DIR}/llmtestdata.h
              LIBS kiln_policies LABEL integration TIMEOUT 120)

# The command policy: scripted agents (tests/data/agents) under the real kiln-agent-sandbox, the
# recorded output formats of three agent CLIs, and searches through kiln-cli.
kiln_add_test(NAME tst_commandpolicy SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_commandpolicy.cpp
              LIBS kiln_policy_command kiln_store kiln_tasks LABEL integration TIMEOUT 600)
add_dependencies(tst_commandpolicy kiln-cli kiln-agent-sandbox)
