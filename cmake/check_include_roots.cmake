# Compiles one-line sources with a layer library's include directories
# (INCLUDES, '|'-separated): headers of a layer below (BELOW) and of its own
# (SAME) must compile, a header of a layer above (ABOVE) must not be found.
# Run by the test Layers.CompilerRefusesUpwardInclude.
string(REPLACE "|" ";" include_dirs "${INCLUDES}")
set(flags -std=c++17 -fsyntax-only)
foreach(dir ${include_dirs})
  list(APPEND flags -I${dir})
endforeach()
file(MAKE_DIRECTORY ${WORK_DIR})

function(compile header out_result out_errors)
  string(MAKE_C_IDENTIFIER ${header} stem)
  file(WRITE ${WORK_DIR}/${stem}.cpp "#include \"${header}\"\n")
  execute_process(COMMAND ${CXX} ${flags} ${WORK_DIR}/${stem}.cpp
                  RESULT_VARIABLE result ERROR_VARIABLE errors OUTPUT_QUIET)
  set(${out_result} ${result} PARENT_SCOPE)
  set(${out_errors} "${errors}" PARENT_SCOPE)
endfunction()

foreach(header ${BELOW} ${SAME})
  compile(${header} result errors)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${header} does not compile with the layer's include roots:\n${errors}")
  endif()
endforeach()
compile(${ABOVE} result errors)
if(result EQUAL 0)
  message(FATAL_ERROR "${ABOVE} compiled with a lower layer's include roots: an upward include would too")
endif()
if(NOT errors MATCHES "${ABOVE}: No such file")
  message(FATAL_ERROR "${ABOVE} failed for another reason than not being found:\n${errors}")
endif()
message(STATUS "${BELOW} and ${SAME} compile; ${ABOVE} is not found")
