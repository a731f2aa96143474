# What `cmake --install` and the Debian package (cmake/package.cmake) put where: FHS places as
# Debian's frr package does (the daemon under sbin, the CLI under bin). With --prefix /usr (the
# package's): /usr/sbin/srv6d, /usr/bin/srv6ctl, /etc/srv6d/srv6d.conf,
# /lib/systemd/system/srv6d.service, man pages and bash completion under /usr/share. With any
# other prefix P (/usr/local by default) the config and the unit go under P/etc and
# P/lib/systemd/system (systemd reads /usr/local/lib/systemd/system too).
#
# The config and unit directories depend on the prefix, which `cmake --install --prefix` and
# CPack choose at install time, not at configure time: they are computed by install(CODE) below,
# and the unit's ExecStart names the binary and config where they really went.
include(GNUInstallDirs)

if(TARGET srv6d)
  install(TARGETS srv6d RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})
endif()
if(TARGET srv6ctl)
  install(TARGETS srv6ctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(FILES dist/bash-completion/srv6ctl dist/bash-completion/srv6d
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# Man pages gzip -9n compressed, and the docs as Debian installs them (dist/doc/install_docs.py:
# over 4 kB compressed, links to what is not installed made plain text): README, the operator's
# docs (not the developers': testing, CONTRIBUTING, bench history), the example configs under
# frr-conf/ (README's links name them there), the copyright file.
file(GLOB _srv6d_docs RELATIVE ${CMAKE_SOURCE_DIR} CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md
     ${CMAKE_SOURCE_DIR}/frr-conf/*)
list(FILTER _srv6d_docs EXCLUDE REGEX "^docs/(testing|CONTRIBUTING|bench-history)\\.md$")
list(PREPEND _srv6d_docs README.md)
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(_srv6d_python ${Python3_EXECUTABLE})
set(_srv6d_mandir ${CMAKE_INSTALL_MANDIR})
set(_srv6d_docdir ${CMAKE_INSTALL_DOCDIR})
configure_file(dist/doc/changelog.in ${CMAKE_BINARY_DIR}/dist/doc/changelog @ONLY)
install(CODE "
  set(_src \"${CMAKE_SOURCE_DIR}\")
  set(_bin \"${CMAKE_BINARY_DIR}\")
  set(_py \"${_srv6d_python}\")
  set(_docs \"${_srv6d_docs}\")
  set(_mandir \"${_srv6d_mandir}\")
  set(_docdir \"${_srv6d_docdir}\")
" ALL_COMPONENTS)
install(CODE [[
  set(_root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
  foreach(_m srv6d.8 srv6ctl.8 srv6d.conf.5)
    string(REGEX REPLACE "^.*\\.([0-9])$" "man\\1" _sec ${_m})
    file(MAKE_DIRECTORY ${_root}/${_mandir}/${_sec})
    message(STATUS "Installing: ${_root}/${_mandir}/${_sec}/${_m}.gz")
    execute_process(COMMAND gzip -9nc ${_src}/man/${_m} OUTPUT_FILE ${_root}/${_mandir}/${_sec}/${_m}.gz
                    COMMAND_ERROR_IS_FATAL ANY)
  endforeach()
  message(STATUS "Installing: ${_root}/${_docdir} (docs)")
  execute_process(COMMAND ${_py} ${_src}/dist/doc/install_docs.py ${_src} ${_root}/${_docdir} ${_docs}
                  COMMAND_ERROR_IS_FATAL ANY)
  # Debian's changelog (dpkg's format, its version the package's) and the copyright file.
  execute_process(COMMAND gzip -9nc ${_bin}/dist/doc/changelog OUTPUT_FILE ${_root}/${_docdir}/changelog.gz
                  COMMAND_ERROR_IS_FATAL ANY)
  file(INSTALL DESTINATION ${CMAKE_INSTALL_PREFIX}/${_docdir} TYPE FILE FILES ${_src}/dist/doc/copyright)
]])

set(_srv6d_src ${CMAKE_SOURCE_DIR})
set(_srv6d_bin ${CMAKE_BINARY_DIR})
set(_srv6d_sbindir ${CMAKE_INSTALL_SBINDIR})
install(CODE "
  set(_src \"${_srv6d_src}\")
  set(_bin \"${_srv6d_bin}\")
  set(_sbindir \"${_srv6d_sbindir}\")
" ALL_COMPONENTS)
install(CODE [[
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(_etc /etc)
    set(_unitdir /lib/systemd/system)
  else()
    set(_etc ${CMAKE_INSTALL_PREFIX}/etc)
    set(_unitdir ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
  endif()
  set(SRV6D_EXEC ${CMAKE_INSTALL_PREFIX}/${_sbindir}/srv6d)
  set(SRV6D_CONFIG ${_etc}/srv6d/srv6d.conf)
  configure_file(${_src}/dist/srv6d.service.in ${_bin}/dist/srv6d.service @ONLY)
  file(INSTALL DESTINATION ${_etc}/srv6d TYPE FILE FILES ${_src}/etc/srv6d.conf)
  file(INSTALL DESTINATION ${_unitdir} TYPE FILE FILES ${_bin}/dist/srv6d.service)
]])
