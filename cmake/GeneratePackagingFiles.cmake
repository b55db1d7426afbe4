# Writes the files the package ships next to the binary, from the binary itself:
#   plumb.1.gz  `plumb man` (gzip -9n: no name or time stamp, the same bytes every build)
#   plumb.bash  `plumb completion bash`
#   _plumb      `plumb completion zsh`
#   plumb.toml  CONFIG_HEAD, then `plumb check --print-config` with every setting commented out
# Usage: cmake -DPLUMB=<binary> -DOUT=<dir> -DCONFIG_HEAD=<file> -P GeneratePackagingFiles.cmake
file(MAKE_DIRECTORY ${OUT})
# A sanitizer build reports the registries' static tables as leaks at exit; not a failure here.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
set(ENV{PLUMB_NO_DEFAULT_CONFIG} "1")

function(run_plumb output)
  execute_process(COMMAND ${PLUMB} ${ARGN} OUTPUT_FILE ${output} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "plumb ${ARGN} failed (${rc}): ${err}")
  endif()
endfunction()

run_plumb(${OUT}/plumb.1 man)
file(REMOVE ${OUT}/plumb.1.gz)
execute_process(COMMAND gzip -9n ${OUT}/plumb.1 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${OUT}/plumb.1 failed")
endif()
run_plumb(${OUT}/plumb.bash completion bash)
run_plumb(${OUT}/_plumb completion zsh)

run_plumb(${OUT}/defaults.toml check --print-config)
file(STRINGS ${OUT}/defaults.toml lines ENCODING UTF-8)
file(READ ${CONFIG_HEAD} text)
foreach(line IN LISTS lines)
  if(line MATCHES "^#" OR line STREQUAL "")
    string(APPEND text "${line}\n")
  else()
    string(APPEND text "#${line}\n")
  endif()
endforeach()
file(WRITE ${OUT}/plumb.toml "${text}")
file(REMOVE ${OUT}/defaults.toml)
