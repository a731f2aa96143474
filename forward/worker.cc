#include "forward/worker.hh"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_prefetch.h>

#include <cstring>

#include "forward/flow_hash.hh"
#include "forward/srv6_endpoint.hh"

namespace fwd {

namespace {

constexpr uint16_t eth_len = 14;
constexpr uint16_t ether_ipv4 = 0x0800;
constexpr uint16_t ether_ipv6 = 0x86dd;
constexpr uint16_t ether_arp = 0x0806;

constexpr uint8_t f_no_ttl = 1;  // hop limit already checked and decremented (endpoint, encap)

inline uint16_t load_be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t load_be32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return rte_be_to_cpu_32(v);
}

}  // namespace

struct worker::pkt {
    rte_mbuf* m;
    uint32_t nh;
    uint32_t hash;       // flow hash of the current L3 packet; 0 = not computed yet
    vrf::vrf_id vrf;
    uint16_t l3;         // offset of the current L3 header from the data start
    uint8_t af;          // 4 or 6
    uint8_t flags;
    uint8_t lookups;
    uint32_t l3u() const { return l3; }
};

namespace {
// A packet exactly as it came in (first lookup, its own headers untouched): one the host can be
// handed instead of us.
inline bool pristine(const worker::pkt& p) { return p.lookups == 1 && p.l3 == 14 && p.flags == 0; }
}  // namespace

bool worker::is_own(const pkt& p) const {
    const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
    return p.af == 4 ? _av->is_own(p.vrf, fib::family::ipv4, ip + 16) : _av->is_own(p.vrf, fib::family::ipv6, ip + 24);
}

namespace {

// Checks the L3 header at p.l3 (RFC 791/1812, RFC 8200) and trims Ethernet padding; the whole
// header must be in the first segment. Returns the drop reason or nullopt-like `ok`.
bool check_l3(rte_mbuf* m, uint16_t l3, uint8_t af, drop_reason& why) {
    const uint8_t* ip = rte_pktmbuf_mtod_offset(m, const uint8_t*, l3);
    const uint32_t seg = m->data_len > l3 ? m->data_len - l3 : 0;
    const uint32_t total = m->pkt_len > l3 ? m->pkt_len - l3 : 0;
    uint32_t len;
    if (af == 4) {
        if (seg < 20 || ip[0] >> 4 != 4) {
            why = drop_reason::ip4_truncated;
            return false;
        }
        const uint32_t ihl = (ip[0] & 0xfu) * 4u;
        len = load_be16(ip + 2);
        if (ihl < 20 || ihl > seg || len < ihl || len > total) {
            why = drop_reason::ip4_truncated;
            return false;
        }
        if (rte_raw_cksum(ip, ihl) != 0xffff) {
            why = drop_reason::ip4_bad_checksum;
            return false;
        }
    } else {
        if (seg < 40 || ip[0] >> 4 != 6) {
            why = drop_reason::ip6_truncated;
            return false;
        }
        len = 40u + load_be16(ip + 4);
        if (len > total || (len == 40 && ip[6] == 0)) {  // jumbograms (RFC 2675) are not forwarded
            why = drop_reason::ip6_truncated;
            return false;
        }
    }
    if (len < total)
        rte_pktmbuf_trim(m, static_cast<uint16_t>(total - len));  // Ethernet padding
    return true;
}

// Packets the host must see: IPv6 link-local/multicast destinations (ND, RS/RA), hop-by-hop
// options; IPv4 limited broadcast and multicast.
bool for_host(const uint8_t* ip, uint8_t af) {
    if (af == 6)
        return ip[24] == 0xff || (ip[24] == 0xfe && (ip[25] & 0xc0) == 0x80) || ip[6] == 0;
    return ip[16] >= 224;
}

// Hop limit check and decrement of a routed packet (RFC 1812 §5.3.1, RFC 8200 §3); IPv4 with
// the incremental checksum update of RFC 1624 (as the kernel's ip_decrease_ttl).
bool dec_ttl(uint8_t* ip, uint8_t af) {
    if (af == 4) {
        if (ip[8] <= 1)
            return false;
        --ip[8];
        uint16_t c;
        std::memcpy(&c, ip + 10, 2);
        uint32_t check = c;
        check += rte_cpu_to_be_16(0x0100);
        c = static_cast<uint16_t>(check + (check >= 0xffff));
        std::memcpy(ip + 10, &c, 2);
        return true;
    }
    if (ip[7] <= 1)
        return false;
    --ip[7];
    return true;
}

}  // namespace

worker::worker(std::vector<rx_queue> rx, uint16_t tx_queue, published tables, rte_mempool* hdr_pool,
               worker_counters& counters, rte_ring* resolve)
    : _rx(std::move(rx)), _txq(tx_queue), _tables(tables), _c(counters),
      _tsc_hz(static_cast<double>(rte_get_tsc_hz())), _resolve(resolve) {
    _he.hdr_pool = hdr_pool;
}

uint32_t worker::poll() {
    const fib::dataplane_view* fv = _tables.fib->load();
    const adj_view* av = _tables.adj->load();
    uint32_t got = 0;
    rte_mbuf* pkts[burst_size];
    for (const rx_queue& q : _rx) {
        const uint16_t n = rte_eth_rx_burst(q.port, q.queue, pkts, burst_size);
        if (n == 0)
            continue;
        got += n;
        _c.bursts.add(1);
        if (q.inject_to != port_none)
            inject(pkts, n, q.inject_to);
        else
            process(pkts, n, q.port, fv, av);
    }
    flush();
    _c.polls.add(1);
    return got;
}

// What the host sends through a port's TAP mirror leaves the port unchanged (ARP and ND
// answers, routing protocols, ICMP errors, packets the kernel forwarded itself).
void worker::inject(rte_mbuf** pkts, uint16_t n, uint16_t to) {
    port_counters& pc = _c.ports[to < max_ports ? to : 0];
    pc.injected.add(n);
    for (uint16_t i = 0; i < n; ++i)
        enqueue(to, pkts[i]);
}

// To the host, as received (the frame is still intact: every punt decision is made before a
// packet is modified), through the ingress port's TAP mirror, within its punt rate.
void worker::punt(pkt& p) {
    const port_info& in = *_in;
    if (in.tap_port == port_none)
        return drop(p, drop_reason::punt_no_host);
    bucket& b = _punt[in.port_id];
    const uint64_t now = rte_rdtsc();
    b.tokens += static_cast<double>(now - b.last) * in.punt_rate / _tsc_hz;
    b.last = now;
    if (b.tokens > in.punt_burst)
        b.tokens = in.punt_burst;
    if (b.tokens < 1.0)
        return drop(p, drop_reason::punt_policed);
    b.tokens -= 1.0;
    _c.ports[in.port_id].punted.add(1);
    enqueue(in.tap_port, p.m);
    p.m = nullptr;
}

// A packet we rewrote has no neighbor: it cannot go to the host as received, and nothing else
// would make the kernel resolve the neighbor if its owner never sends ARP/ND itself (a CE that
// only answers). Ask the control thread to (docs/host-path.md); only on this miss path.
void worker::want_neighbor(uint16_t port, fib::family af, const uint8_t* addr) {
    if (_resolve == nullptr)
        return;
    resolve_request q;
    q.port_id = port;
    q.af = af == fib::family::ipv4 ? 4 : 6;
    std::memcpy(q.addr, addr, q.af == 4 ? size_t{4} : size_t{16});
    const uint64_t now = rte_rdtsc();
    if (now - _last_req_tsc < static_cast<uint64_t>(_tsc_hz / 100) && q.port_id == _last_req.port_id &&
        q.af == _last_req.af && std::memcmp(q.addr, _last_req.addr, sizeof q.addr) == 0)
        return;
    if (!resolve_ring_put(_resolve, q)) {
        _c.resolve_lost.add(1);
        return;
    }
    _c.resolve_queued.add(1);
    _last_req = q;
    _last_req_tsc = now;
}

void worker::drop(pkt& p, drop_reason r) {
    _c.drop(r);
    rte_pktmbuf_free(p.m);
    p.m = nullptr;
}

void worker::process(rte_mbuf** pkts, uint16_t n, uint16_t in_port, const fib::dataplane_view* fv,
                     const adj_view* av) {
    while (n > burst_size) {  // the per-burst state holds burst_size packets
        process(pkts, burst_size, in_port, fv, av);
        pkts += burst_size;
        n = static_cast<uint16_t>(n - burst_size);
    }
    pkt st[burst_size];
    pkt* work[burst_size];
    pkt* next[burst_size];
    uint16_t n_work = 0;
    const port_info* in = av ? av->port(in_port) : nullptr;
    port_counters& pc = _c.ports[in_port < max_ports ? in_port : 0];
    pc.rx_packets.add(n);
    // Packet data 4 ahead, mbuf headers 8 ahead (as DPDK's l3fwd): the first touch of each is a
    // cache miss otherwise, and the classify loop below would wait for every one in turn.
    for (uint16_t i = 0; i < n && i < 8; ++i)
        rte_prefetch0(pkts[i]);
    for (uint16_t i = 0; i < n && i < 4; ++i)
        rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    if (fv == nullptr || in == nullptr || !in->up) {
        // Before the first publication, or a port that is down / in a VRF that is not active.
        const drop_reason why = fv == nullptr || in == nullptr ? drop_reason::tables_not_ready : drop_reason::port_down;
        for (uint16_t i = 0; i < n; ++i) {
            _c.drop(why);
            pc.rx_bytes.add(pkts[i]->pkt_len);
            rte_pktmbuf_free(pkts[i]);
        }
        return;
    }
    _fv = fv;
    _av = av;
    _in = in;
    _outer_from = UINT32_MAX;
    _l2_from = UINT32_MAX;

    uint64_t rx_bytes = 0;
    for (uint16_t i = 0; i < n; ++i) {
        if (i + 8 < n)
            rte_prefetch0(pkts[i + 8]);
        if (i + 4 < n)
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void*));
        rx_bytes += pkts[i]->pkt_len;
        pkt& p = st[i];
        p = pkt{pkts[i], fib::nh_miss, 0, in->vrf, eth_len, 0, 0, 0};
        rte_mbuf* m = p.m;
        if (m->data_len < eth_len) {
            drop(p, drop_reason::eth_truncated);
            continue;
        }
        const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
        const uint16_t type = load_be16(d + 12);
        if (type == ether_ipv4) {
            p.af = 4;
        } else if (type == ether_ipv6) {
            p.af = 6;
        } else {
            if (type == ether_arp)
                punt(p);
            else
                drop(p, drop_reason::l3_unknown);
            continue;
        }
        drop_reason why{};
        if (!check_l3(m, eth_len, p.af, why)) {
            drop(p, why);
            continue;
        }
        if (for_host(d + eth_len, p.af)) {
            punt(p);
            continue;
        }
        work[n_work++] = &p;
    }

    pc.rx_bytes.add(rx_bytes);

    while (n_work != 0) {
        lookup(work, n_work);
        uint16_t n_next = 0;
        for (uint16_t i = 0; i < n_work; ++i)
            act(*work[i], next, n_next);
        for (uint16_t i = 0; i < n_next; ++i)
            work[i] = next[i];
        n_work = n_next;
    }
}

// Bulk lookups over runs of packets that share VRF and family (a burst from one port is one
// run; so are the outer lookups after an encap, all in the default VRF).
void worker::lookup(pkt** ps, uint16_t n) {
    uint32_t keys4[burst_size];
    uint8_t keys6[burst_size][16];
    uint32_t res[burst_size];
    for (uint16_t i = 0; i < n;) {
        const uint8_t af = ps[i]->af;
        const vrf::vrf_id v = ps[i]->vrf;
        uint16_t j = i;
        for (; j < n && ps[j]->af == af && ps[j]->vrf == v; ++j) {
            pkt& p = *ps[j];
            ++p.lookups;
            const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
            if (af == 4)
                keys4[j - i] = load_be32(ip + 16);
            else
                std::memcpy(keys6[j - i], ip + 24, 16);
        }
        const uint32_t k = j - i;
        if (af == 4)
            _fv->lookup4_bulk(v, keys4, res, k);
        else
            _fv->lookup6_bulk(v, keys6, res, k);
        for (uint32_t x = 0; x < k; ++x) {
            ps[i + x]->nh = res[x];
            rte_prefetch0(&_fv->nexthop(res[x]));  // act() reads it next
        }
        i = j;
    }
}

void worker::act(pkt& p, pkt** next, uint16_t& n_next) {
    const fib::compiled_nh* nh = &_fv->nexthop(p.nh);
    if (nh->kind() == fib::nh_kind::ecmp) {
        if (p.hash == 0) {
            const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
            p.hash = flow_hash_ip(ip, p.m->data_len - p.l3u());
        }
        nh = &_fv->nexthop(nh->pick(p.hash));
    }
    // The common kinds first, as plain branches: a jump table's indirect branch mispredicts when
    // a burst alternates kinds (headend, then the outer route's forward).
    const fib::nh_kind kind = nh->kind();
    if (likely(kind == fib::nh_kind::forward))
        return do_forward(p, *nh);
    if (kind == fib::nh_kind::headend) {
        if (p.lookups >= max_lookups)
            return drop(p, drop_reason::lookup_loop);
        return do_headend(p, *nh, next, n_next);
    }
    if (kind == fib::nh_kind::local_sid) {
        if (p.lookups >= max_lookups)
            return drop(p, drop_reason::lookup_loop);
        return do_endpoint(p, *nh, next, n_next);
    }
    switch (kind) {
    case fib::nh_kind::forward:
    case fib::nh_kind::headend:
    case fib::nh_kind::local_sid: break;  // above
    case fib::nh_kind::miss:
        // The router's own addresses are the host's even before zebra sent their routes.
        if (pristine(p) && is_own(p))
            return punt(p);
        return drop(p, drop_reason::no_route);
    case fib::nh_kind::blackhole: return drop(p, drop_reason::blackhole);
    case fib::nh_kind::unreachable:
    case fib::nh_kind::prohibit: return drop(p, drop_reason::unreachable);
    case fib::nh_kind::receive:
        if (pristine(p))
            return punt(p);
        return drop(p, drop_reason::punt_no_host);  // decapsulated for us: nothing to answer
    case fib::nh_kind::refused:
        return drop(p, nh->refusal() <= fib::nh_refusal::sid_no_table && nh->refusal() != fib::nh_refusal::none
                           ? drop_reason::sid_refused
                           : drop_reason::refused_encap);
    case fib::nh_kind::ecmp: return drop(p, drop_reason::lookup_loop);  // groups do not nest
    }
    drop(p, drop_reason::no_route);
}

void worker::do_forward(pkt& p, const fib::compiled_nh& nh) {
    uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, uint8_t*, p.l3);
    const fib::nh_via& via = nh.via();
    const port_info* out;
    const mac_addr* mac;
    if (via.gw_family != 0 && nh.index() == _l2_from) {
        out = _l2_port;
        mac = _l2_mac;
    } else {
        out = _av->port_by_ifindex(via.ifindex);
        if (out == nullptr)
            return pristine(p) ? punt(p) : drop(p, drop_reason::no_port);  // e.g. lo: the host's
        if (!out->up)
            return drop(p, drop_reason::port_down);
        const uint8_t* nb;  // the neighbor
        fib::family naf;
        if (via.gw_family == 0) {
            // A connected route: the destination itself is the neighbor, unless it is us.
            nb = ip + (p.af == 4 ? 16 : 24);
            naf = p.af == 4 ? fib::family::ipv4 : fib::family::ipv6;
            if (pristine(p) && _av->is_own(p.vrf, naf, nb))
                return punt(p);
            mac = _av->neighbor_mac(out->port_id, naf, nb);
        } else {
            nb = via.gw;
            naf = static_cast<fib::family>(via.gw_family);
            mac = _av->neighbor_mac(out->port_id, naf, nb);
            if (mac != nullptr) {
                _l2_from = nh.index();
                _l2_port = out;
                _l2_mac = mac;
            }
        }
        if (mac == nullptr) {
            if (pristine(p))  // the host resolves it and forwards this one itself
                return punt(p);
            want_neighbor(out->port_id, naf, nb);
            return drop(p, drop_reason::neigh_unresolved);
        }
    }
    if (!(p.flags & f_no_ttl) && !dec_ttl(ip, p.af))  // the host answers with ICMP time exceeded
        return pristine(p) ? punt(p) : drop(p, drop_reason::ttl_expired);
    if (p.m->pkt_len - p.l3u() > out->mtu)
        return drop(p, drop_reason::mtu_exceeded);
    l2_write(p, *out, *mac);
}

void worker::do_headend(pkt& p, const fib::compiled_nh& nh, pkt** next, uint16_t& n_next) {
    const fib::nh_encap& e = nh.encap();
    const auto mode = static_cast<fib::encap_mode>(e.mode);
    encap_tmpl_view tv;
    tv.bytes = nh.encap_bytes().data();
    tv.len = e.len;
    tv.nh_off = static_cast<uint8_t>(e.next_header_off);
    tv.l2 = mode == fib::encap_mode::l2encap || mode == fib::encap_mode::l2encap_red;
    uint16_t l3 = p.l3;
    if (tv.l2) {
        // The frame as received is the payload (RFC 8986 §5.3); a decapsulated packet has none.
        if (p.l3 < eth_len)
            return drop(p, drop_reason::l2encap_no_frame);
    } else {
        uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, uint8_t*, p.l3);
        if (!(p.flags & f_no_ttl) && !dec_ttl(ip, p.af))
            return drop(p, drop_reason::ttl_expired);
    }
    drop_reason why{};
    const uint32_t hash = p.hash != 0 ? p.hash : inner_flow_hash(p.m, l3, tv.l2);
    rte_mbuf* head = h_encaps(p.m, l3, hash, tv, _he, why);
    if (head == nullptr)
        return drop(p, why);
    if (e.mode < headend_modes)  // the compiler only builds templates for these
        _c.headend[e.mode].add(1);
    p.m = head;
    p.l3 = 0;
    p.af = 6;
    p.vrf = vrf::default_vrf_id;  // the outer packet is routed in the core (default) VRF
    p.flags |= f_no_ttl;          // its hop limit is the template's
    p.hash = 0;
    // The outer destination is the template's: one lookup per headend nexthop and burst.
    const uint32_t from = nh.index();
    if (from != _outer_from) {
        _outer_from = from;
        _outer_nh = _fv->lookup6(vrf::default_vrf_id, tv.bytes + 24);
    }
    p.nh = _outer_nh;
    ++p.lookups;
    act(p, next, n_next);
}

void worker::do_endpoint(pkt& p, const fib::compiled_nh& nh, pkt** next, uint16_t& n_next) {
    if (p.af != 6)
        return drop(p, drop_reason::sid_bad_inner);
    _c.sid(nh.index(), p.m->pkt_len - p.l3u());
    if (p.l3 != 0) {
        rte_pktmbuf_adj(p.m, p.l3);
        p.l3 = 0;
    }
    const fib::nh_sid& s = nh.sid();
    sid_params sp;
    sp.behavior = static_cast<fib::behavior>(s.action);
    sp.flavors = s.flavors;
    if (s.lcblock_bits != 0)
        sp.lcblock_bits = s.lcblock_bits;
    if (s.lcnode_fn_bits != 0)
        sp.lcnode_fn_bits = s.lcnode_fn_bits;
    sp.vrf = s.vrf;
    const endpoint_result r = process_endpoint(p.m, sp);
    switch (r.action) {
    case endpoint_action::forward_v6:
        p.vrf = static_cast<vrf::vrf_id>(r.vrf);
        p.flags |= f_no_ttl;
        p.hash = 0;
        next[n_next++] = &p;
        return;
    case endpoint_action::lookup_v4:
    case endpoint_action::lookup_v6: {
        p.af = r.action == endpoint_action::lookup_v4 ? 4 : 6;
        p.vrf = static_cast<vrf::vrf_id>(r.vrf);
        p.flags = static_cast<uint8_t>(p.flags & ~f_no_ttl);  // routed in the VRF: TTL as usual
        p.hash = 0;
        drop_reason why{};
        if (!check_l3(p.m, 0, p.af, why))
            return drop(p, why);
        next[n_next++] = &p;
        return;
    }
    case endpoint_action::send_v4:
        p.af = 4;
        return do_adjacency(p, nh, fib::family::ipv4, s.nh4);
    case endpoint_action::send_v6:
        p.af = rte_pktmbuf_mtod(p.m, const uint8_t*)[0] >> 4 == 4 ? 4 : 6;  // End.X + USD may carry IPv4
        return do_adjacency(p, nh, fib::family::ipv6, s.nh6);
    case endpoint_action::drop: return drop(p, r.reason);
    }
    drop(p, drop_reason::sid_unsupported);
}

// End.X / End.DX4 / End.DX6: to the SID's adjacency. Its interface is the one the SID names;
// without one, the one the adjacency address routes through in the default VRF.
void worker::do_adjacency(pkt& p, const fib::compiled_nh& nh, fib::family af, const uint8_t* addr) {
    p.flags |= f_no_ttl;
    uint32_t ifindex = nh.via().ifindex != 0 ? nh.via().ifindex : nh.sid().oif;
    if (ifindex == 0) {
        const uint32_t r = af == fib::family::ipv4 ? _fv->lookup4(vrf::default_vrf_id, load_be32(addr))
                                                   : _fv->lookup6(vrf::default_vrf_id, addr);
        const fib::compiled_nh& via = _fv->nexthop(r);
        if (via.kind() == fib::nh_kind::forward)
            ifindex = via.via().ifindex;
    }
    const port_info* out = _av->port_by_ifindex(ifindex);
    if (out == nullptr)
        return drop(p, drop_reason::no_port);
    l2_out(p, *out, af, addr);
}

void worker::l2_out(pkt& p, const port_info& port, fib::family naf, const uint8_t* addr) {
    if (!port.up)
        return drop(p, drop_reason::port_down);
    if (p.m->pkt_len - p.l3u() > port.mtu)
        return drop(p, drop_reason::mtu_exceeded);
    const mac_addr* mac = _av->neighbor_mac(port.port_id, naf, addr);
    if (mac == nullptr) {
        want_neighbor(port.port_id, naf, addr);
        return drop(p, drop_reason::neigh_unresolved);
    }
    l2_write(p, port, *mac);
}

void worker::l2_write(pkt& p, const port_info& port, const mac_addr& mac) {
    uint8_t* eth;
    if (p.l3 >= eth_len) {
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(p.m, static_cast<uint16_t>(p.l3 - eth_len)));
    } else {
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(p.m, static_cast<uint16_t>(eth_len - p.l3)));
        if (eth == nullptr)
            return drop(p, drop_reason::no_headroom);
    }
    std::memcpy(eth, mac.bytes, 6);
    std::memcpy(eth + 6, port.mac.bytes, 6);
    const uint16_t type = p.af == 4 ? ether_ipv4 : ether_ipv6;
    eth[12] = static_cast<uint8_t>(type >> 8);
    eth[13] = static_cast<uint8_t>(type);
    p.m->port = port.port_id;
    enqueue(port.port_id, p.m);
    p.m = nullptr;
}

void worker::enqueue(uint16_t port, rte_mbuf* m) {
    txbuf& b = _tx[port];
    b.m[b.n] = m;
    b.len[b.n] = m->pkt_len;
    _tx_dirty |= 1u << port;
    if (++b.n == burst_size)
        tx(port);
}

void worker::tx(uint16_t port) {
    txbuf& b = _tx[port];
    if (b.n == 0)
        return;
    const uint16_t sent = rte_eth_tx_burst(port, _txq, b.m, b.n);
    port_counters& pc = _c.ports[port];
    uint64_t bytes = 0;
    for (uint16_t i = 0; i < sent; ++i)
        bytes += b.len[i];
    pc.tx_packets.add(sent);
    pc.tx_bytes.add(bytes);
    for (uint16_t i = sent; i < b.n; ++i) {
        rte_pktmbuf_free(b.m[i]);
        pc.tx_dropped.add(1);
        _c.drop(drop_reason::tx_full);
    }
    b.n = 0;
}

void worker::flush() {
    for (uint32_t d = _tx_dirty; d != 0; d &= d - 1)
        tx(static_cast<uint16_t>(__builtin_ctz(d)));
    _tx_dirty = 0;
}

}  // namespace fwd
