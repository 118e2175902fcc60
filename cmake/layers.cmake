# One library per layer of src/, from cmake/layers.txt.
#
# The layer's sources include headers as "model/store/ids.h", "advisor/finding.h": paths below
# src/. src/ itself is on no include path. Instead each layer gets a tree in the build directory
# that holds one entry, a link to its own folder (build/layers/store/model/store -> src/model/store),
# and exports that tree to what links it. A layer therefore sees its own folder and the folders of
# the layers below it, and no other: an include of a higher or a sibling layer is "No such file".
set(NPUSCOPE_LAYERS_FILE ${CMAKE_SOURCE_DIR}/cmake/layers.txt)
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${NPUSCOPE_LAYERS_FILE})
file(STRINGS ${NPUSCOPE_LAYERS_FILE} _npuscope_layer_lines REGEX "^[a-z]")
foreach(line IN LISTS _npuscope_layer_lines)
  string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
  list(POP_FRONT fields name folder)
  set(NPUSCOPE_LAYER_${name}_FOLDER ${folder})
  set(NPUSCOPE_LAYER_${name}_BELOW ${fields})
endforeach()

# The include tree of layer `name`: the directory to put on the include path for its folder alone.
function(npuscope_layer_tree name out)
  set(folder ${NPUSCOPE_LAYER_${name}_FOLDER})
  set(tree ${CMAKE_BINARY_DIR}/layers/${name})
  get_filename_component(parent ${tree}/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT IS_SYMLINK ${tree}/${folder})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${folder} ${tree}/${folder} SYMBOLIC)
  endif()
  set(${out} ${tree} PARENT_SCOPE)
endfunction()

# Compiles `target`'s sources in batches of NPUSCOPE_UNITY_BATCH. GCC warns when a class with a
# name outside the file holds a type of the file's anonymous namespace and the class is not
# defined in the main file, which in a batch it never is; that is the batch's doing, not a problem.
function(npuscope_unity target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${NPUSCOPE_UNITY_BATCH})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
endfunction()

# Adds the static library npuscope_<name> over src/<folder>/ (sources added later need no CMake
# change), with its include tree and its links to the layers below. Qt's code generators stay off
# for the layers without Qt (every one but views).
function(npuscope_add_layer name)
  if(NOT DEFINED NPUSCOPE_LAYER_${name}_FOLDER)
    message(FATAL_ERROR "npuscope_add_layer: ${name} is not a line of ${NPUSCOPE_LAYERS_FILE}")
  endif()
  set(dir ${CMAKE_SOURCE_DIR}/src/${NPUSCOPE_LAYER_${name}_FOLDER})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${dir}/*.cpp ${dir}/*.h ${dir}/*.inl)
  list(REMOVE_ITEM sources ${ARGN})
  add_library(npuscope_${name} STATIC ${sources})
  npuscope_layer_tree(${name} tree)
  target_include_directories(npuscope_${name} PUBLIC ${tree})
  foreach(below IN LISTS NPUSCOPE_LAYER_${name}_BELOW)
    target_link_libraries(npuscope_${name} PUBLIC npuscope_${below})
  endforeach()
  if(NOT name STREQUAL "views")
    set_target_properties(npuscope_${name} PROPERTIES AUTOMOC OFF AUTOUIC OFF AUTORCC OFF)
  endif()
  if(NPUSCOPE_UNITY)
    npuscope_unity(npuscope_${name})
  endif()
endfunction()
