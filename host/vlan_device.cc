#include "host/vlan_device.hh"

#include <net/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vlan.h>

#include <fmt/format.h>

namespace host {

vlan_device create_vlan_device(uint32_t parent_ifindex, const std::string& name, uint16_t vid, uint32_t mtu) {
    vlan_device out;
    nl_sock* sk = nl_socket_alloc();
    if (sk == nullptr) {
        out.err = "netlink: no socket";
        return out;
    }
    rtnl_link* l = nullptr;
    if (int e = nl_connect(sk, NETLINK_ROUTE); e < 0) {
        out.err = fmt::format("netlink connect: {}", nl_geterror(e));
    } else if ((l = rtnl_link_vlan_alloc()) == nullptr) {
        out.err = "out of memory";
    } else {
        rtnl_link_set_link(l, static_cast<int>(parent_ifindex));
        rtnl_link_set_name(l, name.c_str());
        rtnl_link_vlan_set_id(l, vid);
        rtnl_link_set_mtu(l, mtu);
        rtnl_link_set_flags(l, IFF_UP);
        // A kernel without 8021q answers "Unknown device type" (EOPNOTSUPP).
        if (int rc = rtnl_link_add(sk, l, NLM_F_CREATE | NLM_F_EXCL); rc < 0) {
            out.unsupported = rc == -NLE_OPNOTSUPP;
            out.err = nl_geterror(rc);
        } else {
            out.ifindex = if_nametoindex(name.c_str());
            if (out.ifindex == 0)
                out.err = "created, but gone at once";
        }
    }
    if (l != nullptr)
        rtnl_link_put(l);
    nl_socket_free(sk);
    return out;
}

}  // namespace host
