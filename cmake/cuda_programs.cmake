# CUDA programs of the project's own (tests/cuda/), compiled by nvcc into
# build/cuda_programs/ the way their users build them: nvcc 13, `-cudart
# shared -arch=sm_75`, so that they run on tlmgpu's libcudart.so.13 under
# `tlmgpu exec`. Where nvcc is missing nothing is compiled and the tests
# that run the programs skip themselves, saying so (TLMGPU_NVCC is then "").
find_program(TLMGPU_NVCC nvcc HINTS /usr/local/cuda/bin ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES bin)
if(TLMGPU_NVCC)
  message(STATUS "CUDA programs of the tests: compiled with ${TLMGPU_NVCC}")
else()
  set(TLMGPU_NVCC "")
  message(STATUS "CUDA programs of the tests: nvcc not found, their tests will be skipped")
endif()
# Another build directory of the same checkout whose programs to run instead
# of compiling them again (the sanitizer build takes the normal build's: the
# programs do not contain the simulator, they load its libcudart at run time).
set(TLMGPU_CUDA_PROGRAMS_FROM "" CACHE PATH "build directory whose cuda_programs/ and cuda_fatbin/ to reuse")
if(TLMGPU_NVCC AND TLMGPU_CUDA_PROGRAMS_FROM)
  set(TLMGPU_CUDA_PROGRAMS_DIR ${TLMGPU_CUDA_PROGRAMS_FROM}/cuda_programs)
  message(STATUS "CUDA programs of the tests: taken from ${TLMGPU_CUDA_PROGRAMS_DIR}")
else()
  set(TLMGPU_CUDA_PROGRAMS_DIR ${CMAKE_BINARY_DIR}/cuda_programs)
endif()
add_custom_target(tlmgpu_cuda_programs)

# tlmgpu_cuda_program(NAME SOURCES a.cu [b.cu ...] [FLAGS flag...] [CUDART shared|static|none])
# builds build/cuda_programs/NAME from sources relative to the source root,
# with the source root on the include path. FLAGS come after
# `-arch=sm_75` (a -gencode there replaces it). CUDART defaults to shared.
function(tlmgpu_cuda_program name)
  cmake_parse_arguments(PARSE_ARGV 1 prog "" "CUDART" "SOURCES;FLAGS")
  if(NOT TLMGPU_NVCC OR TLMGPU_CUDA_PROGRAMS_FROM)
    return()
  endif()
  if(NOT prog_CUDART)
    set(prog_CUDART shared)
  endif()
  set(out ${TLMGPU_CUDA_PROGRAMS_DIR}/${name})
  list(TRANSFORM prog_SOURCES PREPEND ${CMAKE_SOURCE_DIR}/)
  set(arch -arch=sm_75)
  if("${prog_FLAGS}" MATCHES "-gencode")
    set(arch "")
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${TLMGPU_CUDA_PROGRAMS_DIR}
    COMMAND ${TLMGPU_NVCC} -cudart ${prog_CUDART} ${arch} -I${CMAKE_SOURCE_DIR} ${prog_FLAGS}
            -MD -MF ${out}.d -o ${out} ${prog_SOURCES}
    DEPENDS ${prog_SOURCES}
    DEPFILE ${out}.d
    COMMENT "nvcc ${name}"
    VERBATIM)
  add_custom_target(cuda_program_${name} DEPENDS ${out})
  add_dependencies(tlmgpu_cuda_programs cuda_program_${name})
endfunction()
