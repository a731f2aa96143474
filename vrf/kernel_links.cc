#include "vrf/kernel_links.hh"

#include <netlink/route/link.h>
#include <netlink/route/link/vrf.h>
#include <sys/socket.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace vrf {

kernel_vrfs vrfs_from_links(std::span<rtnl_link* const> links) {
    kernel_vrfs out;
    std::map<uint32_t, vrf_spec> by_ifindex;
    std::vector<rtnl_link*> plain;
    for (rtnl_link* l : links) {
        if (!l || rtnl_link_get_family(l) != AF_UNSPEC)
            continue;
        const int ifindex = rtnl_link_get_ifindex(l);
        if (ifindex <= 0)
            continue;
        const char* name = rtnl_link_get_name(l);
        if (!rtnl_link_is_vrf(l)) {
            plain.push_back(l);
            continue;
        }
        uint32_t table = 0;
        if (rtnl_link_vrf_get_tableid(l, &table) < 0 || table == 0) {
            out.problems.push_back(fmt::format("VRF device {} (ifindex {}) has no table id", name ? name : "?", ifindex));
            continue;
        }
        vrf_spec s;
        s.name = name ? name : "";
        s.table = table;
        s.dev_ifindex = static_cast<uint32_t>(ifindex);
        by_ifindex.emplace(static_cast<uint32_t>(ifindex), std::move(s));
    }
    for (rtnl_link* l : plain) {
        const int master = rtnl_link_get_master(l);
        if (master <= 0)
            continue;
        auto it = by_ifindex.find(static_cast<uint32_t>(master));
        if (it == by_ifindex.end())
            continue;  // enslaved to a bridge, bond, ...: not a VRF member
        const char* name = rtnl_link_get_name(l);
        it->second.members.push_back(member{name ? name : "", static_cast<uint32_t>(rtnl_link_get_ifindex(l))});
    }
    for (auto& [ifindex, s] : by_ifindex) {
        std::sort(s.members.begin(), s.members.end(),
                  [](const member& a, const member& b) { return a.ifindex < b.ifindex; });
        out.specs.push_back(std::move(s));
    }
    return out;
}

}  // namespace vrf
