# The stages' one-way dependencies, checked on every configure (and as a test):
# a file of a stage may include only the headers of the stages listed for it.
# Run as `cmake -DMDPVI_SOURCE_DIR=... -P tools/check_layers.cmake` or include()d.
cmake_policy(SET CMP0057 NEW)
if(NOT MDPVI_SOURCE_DIR)
  set(MDPVI_SOURCE_DIR ${PROJECT_SOURCE_DIR})
endif()

set(mdpvi_layer_dirs engine/model engine/numeric engine/explore engine/solve engine/check engine/pipeline io graph gpu)
set(mdpvi_allowed_engine/model engine/model)
set(mdpvi_allowed_io engine/model io)
set(mdpvi_allowed_graph engine/model gpu graph)
set(mdpvi_allowed_engine/numeric engine/model engine/numeric)
set(mdpvi_allowed_gpu engine/model engine/numeric gpu)
set(mdpvi_allowed_engine/explore engine/model io engine/explore)
set(mdpvi_allowed_engine/solve engine/model engine/numeric graph gpu engine/solve)
set(mdpvi_allowed_engine/check engine/model engine/numeric io graph engine/explore engine/solve engine/check)
# One run of a model with its properties: everything below it, gpu/ only for the
# device's presence (the placement itself is the stages').
set(mdpvi_allowed_engine/pipeline engine/model io graph gpu engine/explore engine/solve engine/check engine/pipeline)

# The stage a path like "engine/solve/bellman.h" belongs to; empty for tools/, tests/.
function(mdpvi_layer_of path out)
  set(found "")
  foreach(dir IN LISTS mdpvi_layer_dirs)
    if(path MATCHES "^${dir}/")
      set(found ${dir})
      break()
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

set(mdpvi_layer_violations "")
foreach(dir IN LISTS mdpvi_layer_dirs)
  file(GLOB files RELATIVE ${MDPVI_SOURCE_DIR} ${MDPVI_SOURCE_DIR}/${dir}/*.h ${MDPVI_SOURCE_DIR}/${dir}/*.cpp
       ${MDPVI_SOURCE_DIR}/${dir}/*.cu ${MDPVI_SOURCE_DIR}/${dir}/*.cuh)
  foreach(file IN LISTS files)
    file(STRINGS ${MDPVI_SOURCE_DIR}/${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" header "${line}")
      mdpvi_layer_of("${header}" target)
      if(target STREQUAL "")
        if(header MATCHES "^(tools|tests)/")
          list(APPEND mdpvi_layer_violations "${file} includes ${header} (tools/ and tests/ are above every stage)")
        endif()
        continue()
      endif()
      if(NOT target IN_LIST mdpvi_allowed_${dir})
        list(APPEND mdpvi_layer_violations "${file} (${dir}) includes ${header} (${target})")
      endif()
    endforeach()
  endforeach()
endforeach()

if(mdpvi_layer_violations)
  list(JOIN mdpvi_layer_violations "\n  " text)
  message(FATAL_ERROR "include layering violated (see engine/README.md):\n  ${text}")
endif()
