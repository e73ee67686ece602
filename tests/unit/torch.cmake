# KernelBench (PyTorch backend) units that need neither torch nor a GPU: the static screen of
# ModelNew candidates, over the candidates in tests/data/kernelbench.
kiln_add_test(NAME tst_torchscreen SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_torchscreen.cpp
              LIBS kiln_verifier kiln_tasks LABEL unit TIMEOUT 120)
