# Models (src/models): item models under QAbstractItemModelTester, lineage layout, diff, report.
kiln_add_test(NAME tst_candidatetablemodel
              SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_candidatetablemodel.cpp
                      ${CMAKE_CURRENT_LIST_DIR}/syntheticrun.cpp
              LIBS kiln_models LABEL unit TIMEOUT 120)
kiln_add_test(NAME tst_treelayout SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_treelayout.cpp
              LIBS kiln_models LABEL unit TIMEOUT 120)
kiln_add_test(NAME tst_sidebysidediff SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_sidebysidediff.cpp
              LIBS kiln_models LABEL unit)
kiln_add_test(NAME tst_reportformatter SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_reportformatter.cpp
              LIBS kiln_models LABEL unit)
kiln_add_test(NAME tst_launchsettings SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_launchsettings.cpp
              LIBS kiln_models LABEL unit)
kiln_add_test(NAME tst_plotdata SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_plotdata.cpp
              LIBS kiln_models LABEL unit)
kiln_add_test(NAME tst_growthtimeline SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_growthtimeline.cpp
              LIBS kiln_models LABEL unit)
