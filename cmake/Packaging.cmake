# Install rules, the Debian package (CPack) and the portable build (docs/packaging.md).
# Included from CMakeLists.txt once the plumb (and plumb-fleet) targets exist.
include(GNUInstallDirs)

option(PLUMB_PORTABLE "Link every library Debian ships as a static archive into plumb; the binary needs only glibc" OFF)
if(PLUMB_PORTABLE)
  include(${CMAKE_CURRENT_LIST_DIR}/Portable.cmake)
endif()

# The manual page, the bash and zsh completions and the example configuration, written by the
# plumb just built (`plumb man`, `plumb completion bash|zsh`, `plumb check --print-config`), so they
# list exactly the commands and options of the binary they ship with.
set(PLUMB_PACKAGING_DIR ${PROJECT_BINARY_DIR}/packaging)
set(PLUMB_PACKAGING_FILES ${PLUMB_PACKAGING_DIR}/plumb.1.gz ${PLUMB_PACKAGING_DIR}/plumb.bash ${PLUMB_PACKAGING_DIR}/_plumb
                          ${PLUMB_PACKAGING_DIR}/plumb.toml)
add_custom_command(OUTPUT ${PLUMB_PACKAGING_FILES}
                   COMMAND ${CMAKE_COMMAND} -DPLUMB=$<TARGET_FILE:plumb> -DOUT=${PLUMB_PACKAGING_DIR}
                           -DCONFIG_HEAD=${PROJECT_SOURCE_DIR}/packaging/plumb.toml.in
                           -P ${CMAKE_CURRENT_LIST_DIR}/GeneratePackagingFiles.cmake
                   DEPENDS plumb ${CMAKE_CURRENT_LIST_DIR}/GeneratePackagingFiles.cmake ${PROJECT_SOURCE_DIR}/packaging/plumb.toml.in
                   COMMENT "Writing the manual page, shell completions and example configuration"
                   VERBATIM)
add_custom_target(plumb_packaging_files ALL DEPENDS ${PLUMB_PACKAGING_FILES})

install(TARGETS plumb RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET plumb-fleet)
  # Linked with its final (empty) run path: Debian's libmpi.so.40 is on the default search path, and
  # a run path rewritten at install time does not match what lld wrote.
  set_target_properties(plumb-fleet PROPERTIES BUILD_WITH_INSTALL_RPATH ON)
  install(TARGETS plumb-fleet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} OPTIONAL)  # not built by the portable preset
endif()
install(FILES ${PLUMB_PACKAGING_DIR}/plumb.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PLUMB_PACKAGING_DIR}/plumb.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME plumb)
install(FILES ${PLUMB_PACKAGING_DIR}/_plumb DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
# plumb reads /etc/plumb/plumb.toml whatever its prefix (src/core/thresholds.cpp).
install(FILES ${PLUMB_PACKAGING_DIR}/plumb.toml DESTINATION /etc/plumb)
# The agent's unit, installed but not enabled (`systemctl enable --now plumb-agent`).
install(FILES ${PROJECT_SOURCE_DIR}/deploy/systemd/plumb-agent.service DESTINATION /lib/systemd/system)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples USE_SOURCE_PERMISSIONS)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package: cpack -G DEB in the build directory writes plumb_<version>_<arch>.deb.
# cpack (and `make install`) package what the build made and build nothing themselves: on a shared
# tree a packaging step must not start a compile of everything.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME plumb)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "plumb developers")
set(CPACK_PACKAGE_CONTACT "plumb developers <dev@plumb.local>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "health checks for AI training and serving machines")
set(CPACK_PACKAGE_DESCRIPTION
    "plumb checks the machines that train and serve models (GPUs, interconnect, storage, host settings,\n"
    "framework configuration) and explains each finding in three layers: symptoms, runtime behaviour\n"
    "and configuration defects.")
string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: from the shared libraries the binaries link (dpkg-shlibdeps, package dpkg-dev), SQLite
# (libsqlite3-0), Vectorscan (libvectorscan5) and ISA-L (libisal2) among them, each with the
# minimum version Debian's symbols file gives for the functions plumb calls. The GPU libraries
# (NVML, CUDA, ONNX Runtime) are opened at run time when present and are no dependency.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)

if(PLUMB_TESTS)
  enable_testing()
  add_subdirectory(${PROJECT_SOURCE_DIR}/tests/packaging ${PROJECT_BINARY_DIR}/tests/packaging)
endif()
