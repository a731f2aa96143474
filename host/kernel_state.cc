#include "host/kernel_state.hh"

#include <fmt/format.h>
#include <linux/neighbour.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/route/addr.h>
#include <netlink/route/neighbour.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "util/log.hh"

namespace host {

namespace {

bool to_addr(nl_addr* a, rib::ip_addr& out) {
    if (a == nullptr)
        return false;
    const int fam = nl_addr_get_family(a);
    const unsigned len = nl_addr_get_len(a);
    if ((fam != AF_INET || len != 4) && (fam != AF_INET6 || len != 16))
        return false;
    out = rib::ip_addr{};
    out.af = fam == AF_INET ? rib::family::ipv4 : rib::family::ipv6;
    std::memcpy(out.bytes.data(), nl_addr_get_binary_addr(a), len);
    return true;
}

std::string state_name(int s) {
    char buf[64];
    rtnl_neigh_state2str(s, buf, sizeof buf);
    return buf;
}

}  // namespace

kernel_state::~kernel_state() {
    if (_mngr)
        nl_cache_mngr_free(_mngr);
    if (_dump_sock)
        nl_socket_free(_dump_sock);
}

std::string kernel_state::start() {
    if (int err = nl_cache_mngr_alloc(nullptr, NETLINK_ROUTE, 0, &_mngr); err < 0) {
        _mngr = nullptr;
        return fmt::format("netlink cache manager: {}", nl_geterror(err));
    }
    if (int err = nl_cache_mngr_add(_mngr, "route/neigh", &kernel_state::on_change, this, &_neigh_cache); err < 0)
        return fmt::format("netlink neighbor cache: {}", nl_geterror(err));
    if (int err = nl_cache_mngr_add(_mngr, "route/addr", &kernel_state::on_change, this, &_addr_cache); err < 0)
        return fmt::format("netlink address cache: {}", nl_geterror(err));
    _dump_sock = nl_socket_alloc();
    if (_dump_sock == nullptr)
        return "netlink: no socket";
    if (int err = nl_connect(_dump_sock, NETLINK_ROUTE); err < 0)
        return fmt::format("netlink connect: {}", nl_geterror(err));
    refresh();
    return {};
}

int kernel_state::fd() const { return _mngr ? nl_cache_mngr_get_fd(_mngr) : -1; }

void kernel_state::on_change(nl_cache*, nl_object*, int, void* self) { ++static_cast<kernel_state*>(self)->_events; }

bool kernel_state::process_events() {
    if (!_mngr)
        return false;
    const int err = nl_cache_mngr_data_ready(_mngr);
    if (err == -NLE_NOMEM) {  // ENOBUFS: notifications were lost; read everything again
        util::log(util::level::warn, "host: neighbor/address notifications lost, re-reading both tables");
        while (nl_cache_mngr_data_ready(_mngr) > 0) {
        }
        nl_cache_refill(_dump_sock, _neigh_cache);
        nl_cache_refill(_dump_sock, _addr_cache);
    } else if (err < 0 && err != -NLE_AGAIN) {
        util::log(util::level::warn, "host: reading netlink notifications: {}", nl_geterror(err));
    }
    return refresh();
}

bool kernel_state::refresh() {
    std::vector<kernel_neighbor> ns;
    for (nl_object* o = nl_cache_get_first(_neigh_cache); o; o = nl_cache_get_next(o)) {
        auto* n = reinterpret_cast<rtnl_neigh*>(o);
        const int st = rtnl_neigh_get_state(n);
        if (st & (NUD_INCOMPLETE | NUD_FAILED | NUD_NOARP) || st == NUD_NONE)
            continue;
        nl_addr* ll = rtnl_neigh_get_lladdr(n);
        kernel_neighbor k;
        if (ll == nullptr || nl_addr_get_len(ll) != 6 || !to_addr(rtnl_neigh_get_dst(n), k.addr))
            continue;
        std::memcpy(k.mac.data(), nl_addr_get_binary_addr(ll), 6);
        k.ifindex = static_cast<uint32_t>(rtnl_neigh_get_ifindex(n));
        k.state = state_name(st);
        ns.push_back(std::move(k));
    }
    std::vector<kernel_address> as;
    for (nl_object* o = nl_cache_get_first(_addr_cache); o; o = nl_cache_get_next(o)) {
        auto* a = reinterpret_cast<rtnl_addr*>(o);
        kernel_address k;
        if (!to_addr(rtnl_addr_get_local(a), k.addr))
            continue;
        k.ifindex = static_cast<uint32_t>(rtnl_addr_get_ifindex(a));
        as.push_back(k);
    }
    auto by_key = [](const auto& x, const auto& y) {
        return std::tie(x.ifindex, x.addr.af, x.addr.bytes) < std::tie(y.ifindex, y.addr.af, y.addr.bytes);
    };
    std::sort(ns.begin(), ns.end(), by_key);
    std::sort(as.begin(), as.end(), by_key);
    // A neighbor changing state (reachable <-> stale) does not change what the dataplane needs.
    auto same_neigh = [](const std::vector<kernel_neighbor>& x, const std::vector<kernel_neighbor>& y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const auto& p, const auto& q) {
            return p.ifindex == q.ifindex && p.addr == q.addr && p.mac == q.mac;
        });
    };
    const bool changed = !same_neigh(ns, _neigh) || as != _addrs;
    _neigh = std::move(ns);
    _addrs = std::move(as);
    return changed;
}

}  // namespace host
