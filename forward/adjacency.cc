#include "forward/adjacency.hh"

#include <bit>
#include <cstring>

namespace fwd {

uint32_t adj_view::hash(uint16_t port_id, uint8_t af, const uint8_t* a) {
    uint64_t x = 0, y = 0;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, a + 8, 8);
    uint64_t h = (x * 0x9e3779b97f4a7c15ull) ^ (y + 0xc2b2ae3d27d4eb4full) ^ (uint64_t{port_id} << 8 | af);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return static_cast<uint32_t>(h ^ (h >> 32));
}

const adj_view* adj_view::create(std::span<const port_info> ports, std::span<const neighbor> neighbors,
                                 uint64_t epoch) {
    auto* v = new adj_view;
    v->_epoch = epoch;
    for (auto& b : v->_by_port)
        b = -1;
    for (const auto& p : ports) {
        if (p.port_id >= max_ports || v->_by_port[p.port_id] >= 0)
            continue;  // the control plane rejects both before building
        v->_by_port[p.port_id] = static_cast<int16_t>(v->_ports.size());
        v->_ports.push_back(p);
    }
    const size_t cap = std::bit_ceil(std::max<size_t>(16, neighbors.size() * 2));
    v->_neigh.resize(cap);
    for (const auto& n : neighbors) {
        const uint8_t af = static_cast<uint8_t>(n.addr.af);
        const uint8_t* a = n.addr.bytes.data();
        for (size_t i = hash(n.port_id, af, a) & (cap - 1);; i = (i + 1) & (cap - 1)) {
            slot& s = v->_neigh[i];
            if (s.used && (s.port_id != n.port_id || s.af != af || std::memcmp(s.addr, a, 16) != 0))
                continue;
            if (!s.used)
                ++v->_neigh_count;
            s.used = 1;
            s.af = af;
            s.port_id = n.port_id;
            s.mac = n.mac;
            std::memcpy(s.addr, a, 16);
            break;
        }
    }
    return v;
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

const mac_addr* adj_view::neighbor_mac(uint16_t port_id, fib::family af, const uint8_t* addr) const {
    // Fixed-size copies and compares: no libc call on the packet path.
    alignas(8) uint8_t a[16]{};
    if (af == fib::family::ipv4)
        std::memcpy(a, addr, 4);
    else
        std::memcpy(a, addr, 16);
    uint64_t k0, k1;
    std::memcpy(&k0, a, 8);
    std::memcpy(&k1, a + 8, 8);
    const uint8_t f = static_cast<uint8_t>(af);
    const size_t mask = _neigh.size() - 1;
    for (size_t i = hash(port_id, f, a) & mask;; i = (i + 1) & mask) {
        const slot& s = _neigh[i];
        if (!s.used)
            return nullptr;
        uint64_t s0, s1;
        std::memcpy(&s0, s.addr, 8);
        std::memcpy(&s1, s.addr + 8, 8);
        if (s.port_id == port_id && s.af == f && s0 == k0 && s1 == k1)
            return &s.mac;
    }
}

}  // namespace fwd
