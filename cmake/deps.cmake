find_package(PkgConfig REQUIRED)
# IMPORTED_TARGET turns DPDK's include dirs into -isystem, so -Werror holds under C++20.
pkg_check_modules(DPDK REQUIRED IMPORTED_TARGET libdpdk)
# libdpdk.pc forces -march=corei7; keep the project's own choice instead, but keep the ISA that
# DPDK's inline headers need (rte_memcpy inside mempool get/put uses SSSE3; SSE4.2 is DPDK's x86 baseline).
get_target_property(_dpdk_opts PkgConfig::DPDK INTERFACE_COMPILE_OPTIONS)
if(_dpdk_opts)
  list(FILTER _dpdk_opts EXCLUDE REGEX "^-march=")
  list(APPEND _dpdk_opts -msse4.2)
  set_target_properties(PkgConfig::DPDK PROPERTIES INTERFACE_COMPILE_OPTIONS "${_dpdk_opts}")
endif()
pkg_check_modules(LIBNL REQUIRED IMPORTED_TARGET libnl-3.0 libnl-genl-3.0 libnl-route-3.0)
# sd_journal_send (util/log), sd_notify (apps/srv6d): the journal and systemd's Type=notify.
pkg_check_modules(SYSTEMD REQUIRED IMPORTED_TARGET libsystemd)
# srv6ctl capture writes its pcap with libpcap (pcap_open_dead + pcap_dump).
pkg_check_modules(PCAP REQUIRED IMPORTED_TARGET libpcap)
# srv6ctl's shell: line editing, history, ? and TAB (apps/srv6ctl/shell.cc says why libedit).
pkg_check_modules(LIBEDIT REQUIRED IMPORTED_TARGET libedit)

find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(Protobuf REQUIRED)
if(SRV6D_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SRV6D_BENCH)
  find_package(benchmark QUIET)
endif()
