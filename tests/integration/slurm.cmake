# --executor slurm on a single-node Slurm that the test starts (root; slurm-wlm and munge).
kiln_add_test(NAME tst_slurmexecutor SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_slurmexecutor.cpp
              LIBS kiln_store kiln_models kiln_verifier LABEL integration TIMEOUT 900)
add_dependencies(tst_slurmexecutor kiln-cli)
# Its verdict comparison runs real timings: not beside another test's load.
set_tests_properties(tst_slurmexecutor PROPERTIES RUN_SERIAL TRUE)
