# Unity build by folder: the files of one folder (src/rules, tests/unit/collect, ...) are compiled
# together in groups of at most PLUMB_UNITY_GROUP_SIZE, so the headers they share (the standard
# library, CLI11, GoogleTest, core/) are parsed once per group instead of once per file. It halves
# a clean build on two cores (docs/development.md, "Build time").
#
# What it asks of the code: a name in an anonymous namespace (or `static`) is unique within its
# folder, since the files of a folder can share a translation unit (scripts/check-unity-names, run by
# the test suite, fails on a repeated one). Files built with their own options (the optimised trace
# reader and log scan) and files marked SKIP_UNITY_BUILD_INCLUSION stay on their own. The fuzz and
# clang-tidy presets build file by file, which also proves every file includes what it uses.
option(PLUMB_UNITY "Compile each src/ and tests/ folder's files together in groups (unity build)" ON)
set(PLUMB_UNITY_GROUP_SIZE 12 CACHE STRING "Most files in one unity group")

function(plumb_unity target)
  if(NOT PLUMB_UNITY)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(target_dir ${target} SOURCE_DIR)
  list(SORT sources)
  set(groups "")
  foreach(src IN LISTS sources)
    if(NOT src MATCHES "\\.cpp$")
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${target_dir} NORMALIZE OUTPUT_VARIABLE abs)
    get_source_file_property(own_options ${abs} TARGET_DIRECTORY ${target} COMPILE_OPTIONS)
    get_source_file_property(skip ${abs} TARGET_DIRECTORY ${target} SKIP_UNITY_BUILD_INCLUSION)
    if(own_options OR skip)
      continue()
    endif()
    cmake_path(GET abs PARENT_PATH folder)
    cmake_path(IS_PREFIX PROJECT_SOURCE_DIR ${folder} NORMALIZE in_tree)
    if(NOT in_tree)  # generated sources (the embedded probe script) stay on their own
      continue()
    endif()
    file(RELATIVE_PATH key ${PROJECT_SOURCE_DIR} ${folder})
    string(MAKE_C_IDENTIFIER "${key}" key)
    if(NOT DEFINED count_${key})
      set(count_${key} 0)
    endif()
    math(EXPR index "${count_${key}} / ${PLUMB_UNITY_GROUP_SIZE}")
    math(EXPR count_${key} "${count_${key}} + 1")
    set_source_files_properties(${abs} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP "${key}_${index}")
  endforeach()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
endfunction()
