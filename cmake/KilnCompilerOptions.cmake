# Warnings and Qt hygiene shared by every Kiln target.
add_library(kiln_options INTERFACE)
target_compile_options(kiln_options INTERFACE -Wall -Wextra -Wno-missing-field-initializers)
target_compile_definitions(kiln_options INTERFACE QT_NO_CAST_FROM_ASCII QT_NO_FOREACH
                                                  QT_NO_NARROWING_CONVERSIONS_IN_CONNECT)
if(KILN_WITH_CUDA)
    target_compile_definitions(kiln_options INTERFACE KILN_WITH_CUDA=1)
endif()
target_compile_definitions(kiln_options INTERFACE KILN_VERSION="${PROJECT_VERSION}")
