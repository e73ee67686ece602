# KernelBench (PyTorch backend) units that need neither torch nor a GPU: the static screen of
# ModelNew candidates, over the candidates in tests/data/kernelbench.
kiln_add_test(NAME tst_torchscreen SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_torchscreen.cpp
              LIBS kiln_verifier kiln_tasks LABEL unit TIMEOUT 120)
# The audit's judgements (kernel shares, op records) on recorded data: no torch, no GPU.
kiln_add_test(NAME tst_torchaudit SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_torchaudit.cpp
              LIBS kiln_verifier_torch kiln_verifier LABEL unit TIMEOUT 60)
# Kiln's fast inline build: the cut of load_inline CUDA sources into device and host parts
# (golden files), and the device parts compiled with nvcc where the toolkit is installed.
kiln_add_test(NAME tst_inlinesplit SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_inlinesplit.cpp
              LIBS Qt6::Test LABEL unit TIMEOUT 300)
# Kiln's bytecode of the interpreter's packages for the sandboxes (python3 only, no torch).
kiln_add_test(NAME tst_torchbytecode SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_torchbytecode.cpp
              LIBS kiln_verifier_torch kiln_verifier LABEL unit TIMEOUT 120)
