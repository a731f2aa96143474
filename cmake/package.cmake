# The Debian package: `cpack -G DEB` in a build tree (docs/operating.md). CPack DEB rather than
# debhelper: the package holds exactly what the install() rules of cmake/install.cmake install,
# with no second description of the files (a debian/ directory) to keep in step, and Debian's
# own dpkg-shlibdeps (dpkg-dev) still computes the runtime Depends from the binaries. The
# maintainer scripts are small and ours (dist/deb/).
set(CPACK_PACKAGE_NAME srv6d)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "srv6d developers <srv6d@users.noreply.invalid>")
# Stripped binaries; their debug info in srv6d-dbgsym (a .ddeb, as Debian's dh_strip makes), for
# gdb and crash reports (/usr/lib/debug/.build-id/...).
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "SRv6 L3VPN forwarding backend for FRR (FPM, DPDK)")
set(CPACK_PACKAGE_DESCRIPTION
"srv6d receives FRR zebra's routes, nexthops and SRv6 local SIDs over FPM,
compiles them into per-VRF forwarding tables and forwards with DPDK
(H.Encaps, End, End.X, End.DT4/DT6/DT46, ...). srv6ctl shows its state.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: from the binaries' shared libraries, by dpkg-shlibdeps (libpcap0.8 for srv6ctl capture,
# libedit2 for its shell, too).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# zebra feeds it; dpdk-devbind (package dpdk) binds NICs to vfio-pci: wanted, not needed to start.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "frr, dpdk")
# Always a /usr package (Debian's layout), whatever prefix `cmake --install` defaults to. DESTDIR
# staging, so that install(CODE)'s absolute /etc and /lib/systemd/system land in the package.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)  # the prefix DESTDIR staging installs with
set(CPACK_SET_DESTDIR ON)
# conffiles: an edited /etc/srv6d/srv6d.conf survives upgrades (dpkg asks before replacing it).
file(WRITE ${CMAKE_BINARY_DIR}/dist/deb/conffiles "/etc/srv6d/srv6d.conf\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_BINARY_DIR}/dist/deb/conffiles
    ${CMAKE_SOURCE_DIR}/dist/deb/postinst
    ${CMAKE_SOURCE_DIR}/dist/deb/prerm
    ${CMAKE_SOURCE_DIR}/dist/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
include(CPack)
