# Renames the weak and local function definitions (and weak vtables) of one object file: the copies
# that object compiled for AVX2 (standard-library templates, inline functions) are then used by it
# only (the linker can no longer pick them for code that runs on any x86-64 CPU), and they carry
# a suffix scripts/check-avx.sh recognises.
# Weak data (static locals of inline functions, template statics) keeps its name: it must stay
# one object. Usage: cmake -DIN=obj -DOUT=obj -DNM=nm -DOBJCOPY=objcopy -P localise_avx2_object.cmake
execute_process(COMMAND ${NM} -P --defined-only ${IN} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${IN}")
endif()
string(REPLACE "\n" ";" lines "${syms}")
set(map "")
set(count 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ]+) ([A-Za-z]) ")
    set(name ${CMAKE_MATCH_1})
    set(type ${CMAKE_MATCH_2})
    if(type STREQUAL "W" OR type STREQUAL "t" OR (type STREQUAL "V" AND name MATCHES "^_ZT[VCT]"))
      string(APPEND map "${name} ${name}.npuscope_avx2\n")
      math(EXPR count "${count} + 1")
    endif()
  endif()
endforeach()
get_filename_component(dir ${OUT} DIRECTORY)
file(WRITE ${OUT}.syms "${map}")
execute_process(COMMAND ${OBJCOPY} --redefine-syms=${OUT}.syms ${IN} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJCOPY} failed on ${IN}")
endif()
