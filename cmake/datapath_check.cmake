# Every object of the datapath libraries, linked whole into a program with DPDK and the C++ runtime
# only: a worker that calls into the RIB, the logger, Boost, fmt, libnl or protobuf fails this link.
file(WRITE ${CMAKE_BINARY_DIR}/datapath_link_check.cc "int main() { return 0; }\n")
add_executable(datapath_link_check ${CMAKE_BINARY_DIR}/datapath_link_check.cc)
set(_whole)
foreach(l ${SRV6D_DATAPATH_LIBS})
  list(APPEND _whole $<TARGET_FILE:${l}>)
  add_dependencies(datapath_link_check ${l})
endforeach()
target_link_libraries(datapath_link_check PRIVATE srv6d_flags -Wl,--whole-archive ${_whole} -Wl,--no-whole-archive
                      PkgConfig::DPDK)
