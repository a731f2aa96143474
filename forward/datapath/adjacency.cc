#include "forward/datapath/adjacency.hh"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <vector>

namespace fwd {

namespace {

// The 16 address bytes as two words (IPv4 in the first 4 bytes, the rest zero): fixed-size
// copies and compares, no libc call on the packet path.
inline void key_of(rib::family af, const uint8_t* addr, uint64_t k[2]) {
    alignas(8) uint8_t a[16]{};
    if (af == rib::family::ipv4)
        std::memcpy(a, addr, 4);
    else
        std::memcpy(a, addr, 16);
    std::memcpy(&k[0], a, 8);
    std::memcpy(&k[1], a + 8, 8);
}

}  // namespace

uint32_t adj_view::hash(uint8_t kind, uint16_t id, uint8_t af, const uint64_t k[2]) {
    uint64_t h = (k[0] * 0x9e3779b97f4a7c15ull) ^ (k[1] + 0xc2b2ae3d27d4eb4full) ^
                 (uint64_t{id} << 16 | uint64_t{kind} << 8 | af);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return static_cast<uint32_t>(h ^ (h >> 32));
}

void adj_view::insert(uint8_t kind, uint16_t id, const rib::ip_addr& a, const mac_addr& mac) {
    uint64_t k[2];
    key_of(a.af, a.bytes.data(), k);
    const uint8_t af = static_cast<uint8_t>(a.af);
    const size_t mask = _slots.size() - 1;
    for (size_t i = hash(kind, id, af, k) & mask;; i = (i + 1) & mask) {
        slot& s = _slots[i];
        if (s.kind != 0) {
            uint64_t t[2];
            std::memcpy(t, s.addr, 16);
            if (s.kind != kind || s.id != id || s.af != af || t[0] != k[0] || t[1] != k[1])
                continue;
        } else {
            ++(kind == kind_neighbor ? _neigh_count : _own_count);
        }
        s.kind = kind;
        s.af = af;
        s.id = id;
        s.mac = mac;
        std::memcpy(s.addr, k, 16);
        return;
    }
}

const adj_view::slot* adj_view::find(uint8_t kind, uint16_t id, rib::family af, const uint8_t* addr) const {
    uint64_t k[2];
    key_of(af, addr, k);
    const uint8_t f = static_cast<uint8_t>(af);
    const size_t mask = _slots.size() - 1;
    for (size_t i = hash(kind, id, f, k) & mask;; i = (i + 1) & mask) {
        const slot& s = _slots[i];
        if (s.kind == 0)
            return nullptr;
        uint64_t t[2];
        std::memcpy(t, s.addr, 16);
        if (s.kind == kind && s.id == id && s.af == f && t[0] == k[0] && t[1] == k[1])
            return &s;
    }
}

const adj_view* adj_view::create(std::span<const port_info> ports, std::span<const neighbor> neighbors,
                                 uint64_t epoch, std::span<const own_address> own, std::span<const l2_service> l2,
                                 icmp_limit icmp) {
    auto* v = new adj_view;
    v->_epoch = epoch;
    v->_icmp = icmp;
    static std::atomic<uint64_t> serials{0};
    v->_serial = serials.fetch_add(1, std::memory_order_relaxed) + 1;
    for (auto& b : v->_by_port)
        b = -1;
    for (const auto& p : ports) {
        if (p.port_id >= max_ports || v->_by_port[p.port_id] >= 0)
            continue;  // the control plane rejects both before building
        v->_by_port[p.port_id] = static_cast<int16_t>(v->_ports.size());
        if (p.vlan != 0)
            v->_subs.push_back(static_cast<uint8_t>(v->_ports.size()));
        v->_ports.push_back(p);
        if (p.l2vpn > l2.size() || (p.l2vpn != 0 && l2[p.l2vpn - 1u].port_id != p.port_id))
            v->_ports.back().l2vpn = 0;  // the control plane never names another port's
        v->_any_down |= !p.up;
    }
    v->_slots.resize(std::bit_ceil(std::max<size_t>(16, (neighbors.size() + own.size()) * 2)));
    for (const auto& n : neighbors)
        v->insert(kind_neighbor, n.port_id, n.addr, n.mac);
    for (const auto& o : own)
        v->insert(kind_own, o.vrf, o.addr, mac_addr{});
    // Own addresses in a few VRFs, neighbors by the thousand: the own ones sorted once, each
    // neighbor searched among them.
    std::vector<rib::ip_addr> mine;
    for (const auto& o : own)
        mine.push_back(o.addr);
    std::sort(mine.begin(), mine.end());
    for (const auto& n : neighbors)
        v->_own_among_neighbors |= std::binary_search(mine.begin(), mine.end(), n.addr);
    v->_neigh_list.assign(neighbors.begin(), neighbors.end());
    v->_own_list.assign(own.begin(), own.end());
    v->_l2.assign(l2.begin(), l2.end());
    return v;
}

const uint8_t* adj_view::own_source(vrf::vrf_id vrf, rib::family af, uint16_t port_id) const {
    // Rank: on the port, then global (IPv6 link-local only as a last resort: it cannot be
    // routed back through the VPN).
    const uint8_t* best = nullptr;
    int best_rank = -1;
    for (const auto& o : _own_list) {
        if (o.vrf != vrf || o.addr.af != af)
            continue;
        const uint8_t* b = o.addr.bytes.data();
        const bool ll = af == rib::family::ipv6 && b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
        const int rank = (ll ? 0 : 2) + (o.port_id == port_id ? 1 : 0);
        if (rank > best_rank) {
            best = b;
            best_rank = rank;
        }
    }
    return best;
}

const port_info* adj_view::own_port(vrf::vrf_id vrf, rib::family af, const uint8_t* addr) const {
    const size_t n = af == rib::family::ipv4 ? 4 : 16;
    for (const auto& o : _own_list)
        if (o.vrf == vrf && o.addr.af == af && std::memcmp(o.addr.bytes.data(), addr, n) == 0)
            return port(o.port_id);
    return nullptr;
}

void adj_view::destroy(const adj_view* v) noexcept { delete v; }

const port_info* adj_view::port_by_ifindex(uint32_t ifindex) const {
    if (ifindex == 0)
        return nullptr;
    for (const auto& p : _ports)  // a handful of ports: a scan of one or two cache lines
        if (p.ifindex == ifindex)
            return &p;
    return nullptr;
}

}  // namespace fwd
