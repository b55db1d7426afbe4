# The portable build (preset portable, docs/packaging.md): a plumb binary whose only run-time
# requirement is glibc. libstdc++ and libgcc are linked statically, and so is every library plumb
# links that Debian ships as a static archive (zlib, SQLite, pugixml, Vectorscan). toml++ is
# compiled in from its headers in every build. simdjson Debian ships as a shared object alone: its
# amalgamated source (the upstream release the Debian package is built from, pinned by hash) is
# compiled in. ISA-L has no archive either (libisal-dev ships libisal.so alone) and no amalgamated
# source: the portable build leaves it out and inflates gzip with zlib, at a third to a quarter of
# ISA-L's speed (src/analyze/trace/source.cpp, PLUMB_ISAL).
# The GPU libraries (NVML, CUDA, ONNX Runtime) and TurboJPEG stay loaded at run time with dlopen.
# Included from cmake/Packaging.cmake, after plumb_obj exists: it swaps plumb_obj's libraries.

target_link_options(plumb PRIVATE -static-libstdc++ -static-libgcc)

function(plumb_static_archive var file)
  find_library(${var} NAMES ${file} NO_CACHE)
  if(NOT ${var})
    message(FATAL_ERROR "PLUMB_PORTABLE: ${file} not found (its Debian -dev package ships it; scripts/deps.sh build)")
  endif()
  set(${var} ${${var}} PARENT_SCOPE)
endfunction()
plumb_static_archive(PLUMB_Z_A libz.a)
plumb_static_archive(PLUMB_SQLITE_A libsqlite3.a)
plumb_static_archive(PLUMB_HS_A libhs.a)

# SQLite and Vectorscan from their archives instead of libsqlite3.so.0 and libhs.so.5.
add_library(plumb_static_hs INTERFACE)
target_include_directories(plumb_static_hs SYSTEM INTERFACE ${HS_INCLUDE_DIRS})
target_link_libraries(plumb_static_hs INTERFACE ${PLUMB_HS_A} m)

add_library(plumb_static_sqlite INTERFACE)
target_include_directories(plumb_static_sqlite SYSTEM INTERFACE ${SQLite3_INCLUDE_DIRS})
target_link_libraries(plumb_static_sqlite INTERFACE ${PLUMB_SQLITE_A} m ${CMAKE_DL_LIBS} Threads::Threads)

# simdjson 3.0.1: the orig tarball of Debian 12's libsimdjson-dev. PLUMB_SIMDJSON_TARBALL names a
# local copy for machines without network.
set(PLUMB_SIMDJSON_URL "https://deb.debian.org/debian/pool/main/s/simdjson/simdjson_3.0.1.orig.tar.gz")
set(PLUMB_SIMDJSON_SHA256 156b1bc5eb0561b2bd166b46d191fd3d95a3e709cc63761477d3b7aec2b6e9ed)
set(PLUMB_SIMDJSON_TARBALL "" CACHE FILEPATH "simdjson_3.0.1.orig.tar.gz for the portable build (default: downloaded)")
set(simdjson_dir ${PROJECT_BINARY_DIR}/_simdjson/simdjson-3.0.1/singleheader)
if(NOT EXISTS ${simdjson_dir}/simdjson.cpp)
  set(tarball ${PLUMB_SIMDJSON_TARBALL})
  if(NOT tarball)
    set(tarball ${PROJECT_BINARY_DIR}/_simdjson/simdjson_3.0.1.orig.tar.gz)
    message(STATUS "PLUMB_PORTABLE: downloading ${PLUMB_SIMDJSON_URL}")
    # No EXPECTED_HASH here: with it a failed download is CMake's own error ("cannot compute hash
    # on failed download") instead of the message below; the hash is checked after.
    file(DOWNLOAD ${PLUMB_SIMDJSON_URL} ${tarball} STATUS st
         TIMEOUT 120 INACTIVITY_TIMEOUT 30)  # never blocks the build: a failed download is said below
    list(GET st 0 st_code)
    if(NOT st_code EQUAL 0)
      file(REMOVE ${tarball})
      message(FATAL_ERROR "PLUMB_PORTABLE: could not download ${PLUMB_SIMDJSON_URL} (${st}); "
                          "pass a local copy with -DPLUMB_SIMDJSON_TARBALL=FILE")
    endif()
  endif()
  file(SHA256 ${tarball} sum)
  if(NOT sum STREQUAL PLUMB_SIMDJSON_SHA256)
    if(NOT PLUMB_SIMDJSON_TARBALL)
      file(REMOVE ${tarball})
    endif()
    message(FATAL_ERROR "PLUMB_PORTABLE: ${tarball} is not simdjson_3.0.1.orig.tar.gz (SHA-256 ${sum})")
  endif()
  file(ARCHIVE_EXTRACT INPUT ${tarball} DESTINATION ${PROJECT_BINARY_DIR}/_simdjson PATTERNS simdjson-3.0.1/singleheader/simdjson.*)
endif()
add_library(plumb_static_simdjson STATIC ${simdjson_dir}/simdjson.cpp)
target_include_directories(plumb_static_simdjson SYSTEM PUBLIC ${simdjson_dir})
target_compile_definitions(plumb_static_simdjson PUBLIC SIMDJSON_THREADS_ENABLED=1)
target_link_libraries(plumb_static_simdjson PUBLIC Threads::Threads)

# plumb_obj's libraries, each shared one replaced by its static counterpart, and ISA-L left out.
foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
  get_target_property(libs plumb_obj ${prop})
  list(TRANSFORM libs REPLACE "^ZLIB::ZLIB$" "${PLUMB_Z_A}")
  list(TRANSFORM libs REPLACE "^SQLite::SQLite3$" plumb_static_sqlite)
  list(TRANSFORM libs REPLACE "^pugixml::pugixml$" pugixml::static)
  list(TRANSFORM libs REPLACE "^simdjson::simdjson$" plumb_static_simdjson)
  list(TRANSFORM libs REPLACE "^PkgConfig::HS$" plumb_static_hs)
  list(REMOVE_ITEM libs plumb_isal)
  set_property(TARGET plumb_obj PROPERTY ${prop} ${libs})
endforeach()
