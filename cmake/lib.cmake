# srv6d_library(name [DIR sub] [DATAPATH] DEPS ...): a static library from every .cc of the current
# folder (or of its subfolder DIR).
#
# DATAPATH marks code that may run on a worker lcore, per packet (the */datapath/ folders). Such a
# library may depend only on DPDK and other datapath libraries, and its sources may not include
# Boost, fmt, libnl, protobuf, the logger or any */control/ header: a worker never logs, allocates
# through those libraries or calls the control plane. Checked here at configure time (includes)
# and by the datapath_link_check program (link: every datapath object resolved by DPDK and the
# C++ runtime alone).
set(SRV6D_DATAPATH_LIBS "" CACHE INTERNAL "")
function(srv6d_library name)
  cmake_parse_arguments(A "DATAPATH" "DIR" "DEPS" ${ARGN})
  set(_dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(A_DIR)
    set(_dir ${_dir}/${A_DIR})
  endif()
  file(GLOB _srcs CONFIGURE_DEPENDS ${_dir}/*.cc)
  if(A_DATAPATH)
    foreach(d ${A_DEPS})
      if(NOT d MATCHES "^(PkgConfig::DPDK|.*_datapath|rte_.*)$")
        message(FATAL_ERROR "datapath library ${name} may not depend on ${d}")
      endif()
    endforeach()
    file(GLOB _all CONFIGURE_DEPENDS ${_dir}/*.cc ${_dir}/*.hh)
    foreach(f ${_all})
      file(STRINGS ${f} _bad REGEX "#include [<\"](boost/|fmt/|netlink/|google/protobuf|util/log|[a-z]+/control/)")
      if(_bad)
        message(FATAL_ERROR "${f}: datapath code includes ${_bad}")
      endif()
    endforeach()
    set(SRV6D_DATAPATH_LIBS ${SRV6D_DATAPATH_LIBS} ${name} CACHE INTERNAL "")
  endif()
  if(_srcs)
    add_library(${name} STATIC ${_srcs})
    target_link_libraries(${name} PUBLIC srv6d_flags ${A_DEPS})
  else()
    add_library(${name} INTERFACE)
    target_link_libraries(${name} INTERFACE srv6d_flags ${A_DEPS})
  endif()
endfunction()
