// The control thread's watchers of the host: the kernel's neighbors and addresses, neighbor
// resolution the workers asked for, the ports' link state.
#include "apps/srv6d/control_plane.hh"

#include <algorithm>

#include "util/log.hh"

namespace srv6d {

using util::level;
using util::log;

void control_plane::fill_neighbors(::mgmt::pb::NeighborTable& t) const {
    t.set_dataplane(dp.has_value());
    const fwd::adj_view* a = dp ? dp->adjacency() : nullptr;  // the control thread's own snapshot
    if (a == nullptr)
        return;
    auto port_name = [&](uint16_t id) {
        for (size_t i = 0; i < a->ports().size(); ++i)
            if (a->ports()[i].port_id == id)
                return cfg.ports[i].name;
        return std::to_string(id);
    };
    for (const auto& n : a->neighbors()) {
        auto* o = t.add_neighbors();
        o->set_port(port_name(n.port_id));
        o->set_address(rib::to_string(n.addr));
        o->set_mac(fwd::to_string(n.mac));
        bool configured = false;
        for (const auto& c : cfg.neighbors)
            configured |= c.addr == n.addr && c.mac == n.mac && port_name(n.port_id) == c.port;
        o->set_source(configured ? "config" : "kernel");
    }
    if (kernel) {
        for (const auto& k : kernel->addresses())
            for (const auto& p : a->ports())
                if (p.ifindex == k.ifindex && p.tap_port != fwd::port_none) {
                    auto* o = t.add_addresses();
                    o->set_address(rib::to_string(k.addr));
                    const auto* v = vrfs.registry().find(p.vrf);
                    o->set_vrf(v ? v->name : std::string(vrf::default_vrf_name));
                }
    }
}

void control_plane::kernel_changed() {
    fwd::kernel_view k;
    for (const auto& n : kernel->neighbors()) {
        fwd::mac_addr m;
        std::copy(n.mac.begin(), n.mac.end(), m.bytes);
        k.neighbors.push_back({n.ifindex, n.addr, m});
    }
    for (const auto& a : kernel->addresses())
        k.addresses.push_back({a.ifindex, a.addr});
    dp->set_kernel_view(k);
    rcu.reclaim();
}

void control_plane::watch_kernel() {
    kernel_fd->async_wait(boost::asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code& ec) {
        if (ec || stopping)
            return;
        if (kernel->process_events())
            kernel_changed();
        watch_kernel();
    });
}

// Every 20 ms: short against the kernel's own resolution (a round trip on the wire, then
// host::kernel_state's notification), cheap when the queues are empty (one dequeue per worker).
void control_plane::resolve_neighbors() {
    resolve_timer.expires_after(std::chrono::milliseconds(20));
    resolve_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || stopping || !dp || !resolver)
            return;
        resolve_buf.clear();
        dp->take_resolve_requests(resolve_buf);
        const auto now = host::resolve_limiter::clock::now();
        limiter.expire(now);
        uint64_t sent = 0, limited = 0, failed = 0;
        for (const auto& q : resolve_buf) {
            const uint32_t ifindex = dp->tap_ifindex(q.port_id);
            if (ifindex == 0)
                continue;  // a port without a mirror: nobody to resolve it (configure a neighbor)
            rib::ip_addr a;
            a.af = q.af == 4 ? rib::family::ipv4 : rib::family::ipv6;
            std::copy(q.addr, q.addr + (q.af == 4 ? 4 : 16), a.bytes.begin());
            if (!limiter.allow(ifindex, a, now)) {
                ++limited;
                continue;
            }
            if (const std::string e = resolver->resolve(ifindex, a); !e.empty()) {
                ++failed;
                log(level::debug, "host: resolving {} on ifindex {}: {}", rib::to_string(a), ifindex, e);
                continue;
            }
            ++sent;
            log(level::debug, "host: asked the kernel to resolve {} on ifindex {}", rib::to_string(a), ifindex);
        }
        if (!resolve_buf.empty())
            dp->count_resolutions(sent, limited, failed);
        resolve_neighbors();
    });
}

void control_plane::poll_links() {
    // 100 ms: a down link is followed (ECMP repaired, TAP mirrored) well before zebra would.
    link_timer.expires_after(std::chrono::milliseconds(100));
    link_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || stopping || !dp)
            return;
        dp->refresh_links();
        rcu.reclaim();
        poll_links();
    });
}

}  // namespace srv6d
