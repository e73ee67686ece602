# Each library target sees only the headers of what it links (docs/architecture.md, "Layers").
# kiln_expose_headers(<target>) gives <target> an include root of its own under the build
# folder, holding a link to each header it lists among its sources, at the header's path below
# src/ ("verifier/harness/timingloop.h"). The root is PUBLIC (INTERFACE for header-only
# targets), so it reaches exactly the targets that link <target>: an include of a layer that is
# not linked fails to compile. tests/layers checks what the compiler cannot (system headers).
function(kiln_expose_headers target)
    set(root ${CMAKE_BINARY_DIR}/include-roots/${target})
    file(REMOVE_RECURSE ${root})
    get_target_property(sources ${target} SOURCES)
    if(NOT sources)
        get_target_property(sources ${target} INTERFACE_SOURCES)
    endif()
    get_target_property(source_dir ${target} SOURCE_DIR)
    foreach(source ${sources})
        if(NOT source MATCHES "\\.h$")
            continue()
        endif()
        get_filename_component(path ${source} ABSOLUTE BASE_DIR ${source_dir})
        file(RELATIVE_PATH below_src ${PROJECT_SOURCE_DIR}/src ${path})
        get_filename_component(folder ${root}/${below_src} DIRECTORY)
        file(MAKE_DIRECTORY ${folder})
        file(CREATE_LINK ${path} ${root}/${below_src} SYMBOLIC)
    endforeach()
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
        target_include_directories(${target} INTERFACE ${root})
    else()
        target_include_directories(${target} PUBLIC ${root})
    endif()
endfunction()

# kiln_room_sources(<target> <folder> <name>...) adds the classes of one room below the target's
# folder: <folder>/<name>.h and, where there is one, <folder>/<name>.cpp. Call it before
# kiln_expose_headers.
function(kiln_room_sources target folder)
    foreach(name ${ARGN})
        target_sources(${target} PRIVATE ${folder}/${name}.h)
        if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/${name}.cpp)
            target_sources(${target} PRIVATE ${folder}/${name}.cpp)
        endif()
    endforeach()
endfunction()
