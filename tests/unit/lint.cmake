# Problem lint's judgement, its JSON and its cache: no sandbox, no torch.
kiln_add_test(NAME tst_problemlint SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_problemlint.cpp
              LIBS kiln_verifier kiln_tasks LABEL unit TIMEOUT 120)
