// A sub-port's kernel mirror as a Linux PE has it: an 802.1Q VLAN device on the parent's TAP
// (`ip link add link TAP name TAP.100 type vlan id 100`), made over rtnetlink (libnl-route).
// The kernel tags what it sends on it and hands it what arrives on the TAP with its tag.
#pragma once

#include <cstdint>
#include <string>

namespace host {

struct vlan_device {
    uint32_t ifindex = 0;      // 0: not made
    bool unsupported = false;  // the kernel has no VLAN devices (no 8021q): use a TAP instead
    std::string err;
};

// Creates VLAN device `name` with VLAN id `vid` on `parent_ifindex`, MTU `mtu`, and sets it up.
vlan_device create_vlan_device(uint32_t parent_ifindex, const std::string& name, uint16_t vid, uint32_t mtu);

}  // namespace host
