// Kernel VRF devices → registry claims, as a pure function of libnl link objects, so it can be
// tested with hand-built rtnl_link objects on a kernel without VRF support.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "vrf/spec.hh"

struct rtnl_link;

namespace vrf {

struct kernel_vrfs {
    std::vector<vrf_spec> specs;        // one per VRF device, members = links whose master it is
    std::vector<std::string> problems;  // VRF devices that cannot be read (no table id)
};

// Only AF_UNSPEC link objects count (the cache may also hold AF_BRIDGE port views).
// Specs come out sorted by device ifindex: the order the kernel created the VRFs.
kernel_vrfs vrfs_from_links(std::span<rtnl_link* const> links);

}  // namespace vrf
