# KernelBench problems without torch or a GPU: the importer, the task format, the backend rules
# and the PyTorch sandbox's start (tst_torchbackend, label cuda, runs them on a GPU).
kiln_add_test(NAME tst_kernelbench SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_kernelbench.cpp
              LIBS kiln_verifier kiln_tasks LABEL integration TIMEOUT 300)
add_dependencies(tst_kernelbench kiln-cli kiln-sandbox kiln-torch-sandbox)
# The same pipeline end to end on torch's CPU device (Debian's python3-torch in CI).
kiln_add_test(NAME tst_torchcpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_torchcpu.cpp
              LIBS kiln_verifier kiln_tasks LABEL integration TIMEOUT 600)
add_dependencies(tst_torchcpu kiln-sandbox kiln-torch-sandbox)

# What a KernelBench module reaches from inside kiln-torch-sandbox (skipped without torch).
kiln_add_test(NAME tst_torchconfinement SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_torchconfinement.cpp
              LIBS kiln_verifier LABEL integration TIMEOUT 300)
add_dependencies(tst_torchconfinement kiln-torch-sandbox)
