# Unit suites of the policies layer (no network: the LLM client's wire tests are integration).
foreach(unit sseparser codeextractor promptbuilder replaypolicy manualpolicy retrypolicy pricetable llmconfig
             feedbacksummary)
    kiln_add_test(NAME tst_${unit} SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_${unit}.cpp
                  LIBS kiln_policies LABEL unit TIMEOUT 60)
endforeach()
