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
install(FILES man/srv6d.8 man/srv6ctl.8 DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
install(FILES man/srv6d.conf.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
install(FILES dist/bash-completion/srv6ctl dist/bash-completion/srv6d
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES README.md docs/operating.md docs/srv6d.md docs/srv6ctl.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

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
