// The "floor" of bench_dataplane_bench: a minimal DPDK forwarder doing the same work per packet
// as srv6d's worker in each bench case, written with DPDK's own primitives only, as a DPDK
// sample application would (l3fwd style): rx burst, parse the Ethernet type, one bulk lookup per
// burst in rte_lpm (IPv4) or rte_lpm6 / rte_fib6 (IPv6), then per nexthop kind:
//   forward  TTL / hop limit decrement (RFC 1624 checksum update), Ethernet rewrite;
//   encap    H.Encaps(.Red/.L2): rte_pktmbuf_adj / rte_pktmbuf_prepend, copy of a pre-built
//            outer header (+ SRH), traffic class, flow label (srv6d's flow hash with its CRC32C
//            steps through DPDK's rte_hash_crc),
//            payload length and next header; the outer route is taken as resolved in the
//            template (no second lookup);
//   end      End on an SRH: segments left - 1, the new destination, hop limit - 1, then a second
//            bulk lookup of the new destination;
//   insert   H.Insert: the IPv6 header moved in front of the pre-built SRH, its DA into it
//   b6_encaps End.B6.Encaps: End as below, then the encap's push of the policy's header
//   dt46     End.DT46: the outer IPv6 header removed, the inner packet looked up (second bulk
//            lookup) in the VRF's table and forwarded;
//   dx2      End.DX2: the outer IPv6 header removed, the Ethernet frame inside sent out of the
//            SID's port as it is.
// It checks less than srv6d (no IPv4 checksum verification, no length checks beyond what it
// reads, no counters), which is what makes it a floor. Its output bytes are compared with
// srv6d's for every frame of every case before anything is timed.
#pragma once

#include <rte_ethdev.h>
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_mbuf.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fib/datapath/ecmp.hh"
#include "fib/datapath/encap_template.hh"
#include "forward/datapath/flow_hash.hh"

namespace bench {

enum class floor_lpm6 : uint8_t { lpm6, fib6 };

// The flow hash's CRC32C steps through DPDK's rte_hash_crc (srv6d uses the instruction
// directly; the values are the same, the outputs are compared).
using dpdk_crc = fwd::flow_detail::crc_dpdk;

struct floor_nh {
    enum kind_t : uint8_t { drop, forward, encap, end, end_x, dt46, insert, b6_encaps, dx2 };
    kind_t kind = drop;
    uint16_t port = 0;           // forward, encap, end_x, dx2: egress port
    uint8_t eth[12]{};           // forward, encap, end_x: destination (the adjacency's) + source MAC
    uint8_t vrf = 0;             // dt46: the floor VRF the inner packet is looked up in
    uint8_t l2 = 0;              // encap: the frame is the payload (H.Encaps.L2)
    uint8_t nh_off = 6;          // encap: where the inner next header goes
    uint16_t len = 0;            // encap: template bytes
    // encap: the outer route is 2-way ECMP: port2 / eth2 for the flows fib::ecmp_slot() puts in
    // the second of 2 slots by their inner flow hash, port / eth for the first.
    bool ecmp2 = false;
    uint16_t port2 = 0;
    uint8_t eth2[12]{};
    alignas(16) uint8_t tmpl[fib::max_encap_len]{};
};

// One VRF's tables: rte_lpm for IPv4, rte_lpm6 or rte_fib6 for IPv6; next hop = floor_nh index.
struct floor_vrf {
    rte_lpm* v4 = nullptr;
    rte_lpm6* v6 = nullptr;
    rte_fib6* f6 = nullptr;
};

class floor_fwd {
public:
    static constexpr uint16_t burst = 32;
    static constexpr uint32_t max_nh = 64;

    explicit floor_fwd(floor_lpm6 kind) : _kind(kind) {}

    // VRF `v` (0..3): tables sized for `routes` routes each.
    void make_vrf(uint8_t v, uint32_t routes) {
        const std::string n = "floor" + std::to_string(v);
        rte_lpm_config c4{};
        c4.max_rules = routes;
        c4.number_tbl8s = 1 << 12;
        _vrf[v].v4 = rte_lpm_create((n + "_4").c_str(), 0, &c4);
        if (_kind == floor_lpm6::lpm6) {
            rte_lpm6_config c6{};
            c6.max_rules = routes;
            c6.number_tbl8s = 1 << 16;
            _vrf[v].v6 = rte_lpm6_create((n + "_6").c_str(), 0, &c6);
        } else {
            rte_fib6_conf c6{};
            c6.type = RTE_FIB6_TRIE;
            c6.default_nh = 0;
            c6.max_routes = static_cast<int>(routes);
            c6.trie.nh_sz = RTE_FIB6_TRIE_4B;
            c6.trie.num_tbl8 = 1 << 15;
            _vrf[v].f6 = rte_fib6_create((n + "_6").c_str(), 0, &c6);
        }
    }
    bool ok() const {
        for (const auto& v : _vrf)
            if (v.v4 == nullptr && (v.v6 != nullptr || v.f6 != nullptr))
                return false;
        return true;
    }
    ~floor_fwd() {
        for (auto& v : _vrf) {
            rte_lpm_free(v.v4);
            rte_lpm6_free(v.v6);
            rte_fib6_free(v.f6);
        }
    }
    floor_fwd(const floor_fwd&) = delete;
    floor_fwd& operator=(const floor_fwd&) = delete;

    uint32_t add_nh(const floor_nh& n) {
        _nh.push_back(n);
        return static_cast<uint32_t>(_nh.size() - 1);
    }
    bool add4(uint8_t v, uint32_t addr, uint8_t len, uint32_t nh) { return rte_lpm_add(_vrf[v].v4, addr, len, nh) == 0; }
    bool add6(uint8_t v, const uint8_t* addr, uint8_t len, uint32_t nh) {
        if (_kind == floor_lpm6::lpm6)
            return rte_lpm6_add(_vrf[v].v6, addr, len, nh) == 0;
        return rte_fib6_add(_vrf[v].f6, addr, len, nh) == 0;
    }
    void port_vrf(uint16_t port, uint8_t v) { _port_vrf[port] = v; }
    void ports(std::vector<uint16_t> p) { _ports = std::move(p); }

    void poll() {
        rte_mbuf* ms[burst];
        for (uint16_t p : _ports) {
            const uint16_t n = rte_eth_rx_burst(p, 0, ms, burst);
            if (n != 0)
                process(ms, n, _port_vrf[p]);
        }
        for (uint16_t p : _ports)
            flush(p);
    }

private:
    struct work {
        rte_mbuf* m;
        uint16_t l3;  // offset of the IP header from the data start
        uint8_t af;   // 4 or 6
        uint8_t vrf;
        uint8_t no_ttl;  // hop limit already decremented (End)
    };

    void process(rte_mbuf** ms, uint16_t n, uint8_t vrf) {
        work w[burst];
        uint16_t k = 0;
        for (uint16_t i = 0; i < n; ++i) {
            rte_mbuf* m = ms[i];
            const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
            const uint16_t type = static_cast<uint16_t>(d[12] << 8 | d[13]);
            if (type == RTE_ETHER_TYPE_IPV4)
                w[k++] = {m, 14, 4, vrf, 0};
            else if (type == RTE_ETHER_TYPE_IPV6)
                w[k++] = {m, 14, 6, vrf, 0};
            else
                rte_pktmbuf_free(m);
        }
        // At most two lookups per packet (End, End.DT46): two stages.
        for (int stage = 0; stage < 2 && k != 0; ++stage) {
            work next[burst];
            uint16_t k2 = 0;
            stage_lookup(w, k, next, k2);
            std::memcpy(w, next, sizeof(work) * k2);
            k = k2;
        }
        for (uint16_t i = 0; i < k; ++i)
            rte_pktmbuf_free(w[i].m);
    }

    // One bulk lookup per (VRF, family) group of the work list (each bench case has one group
    // per stage), then the action of each packet.
    void stage_lookup(work* w, uint16_t k, work* next, uint16_t& k2) {
        uint32_t nh[burst];
        for (uint16_t i = 0; i < k;) {
            uint16_t j = i;
            while (j < k && w[j].af == w[i].af && w[j].vrf == w[i].vrf)
                ++j;
            const floor_vrf& t = _vrf[w[i].vrf];
            const uint32_t cnt = j - i;
            if (w[i].af == 4) {
                uint32_t ips[burst];
                for (uint32_t x = 0; x < cnt; ++x) {
                    uint32_t be;
                    std::memcpy(&be, rte_pktmbuf_mtod_offset(w[i + x].m, const uint8_t*, w[i + x].l3 + 16), 4);
                    ips[x] = rte_be_to_cpu_32(be);
                }
                rte_lpm_lookup_bulk(t.v4, ips, nh, cnt);
                for (uint32_t x = 0; x < cnt; ++x)
                    nh[x] = (nh[x] & RTE_LPM_LOOKUP_SUCCESS) ? nh[x] & 0x00ffffffu : 0;
            } else {
                uint8_t ips[burst][16];
                for (uint32_t x = 0; x < cnt; ++x)
                    std::memcpy(ips[x], rte_pktmbuf_mtod_offset(w[i + x].m, const uint8_t*, w[i + x].l3 + 24), 16);
                if (_kind == floor_lpm6::lpm6) {
                    int32_t r[burst];
                    rte_lpm6_lookup_bulk_func(t.v6, ips, r, cnt);
                    for (uint32_t x = 0; x < cnt; ++x)
                        nh[x] = r[x] < 0 ? 0 : static_cast<uint32_t>(r[x]);
                } else {
                    uint64_t r[burst];
                    rte_fib6_lookup_bulk(t.f6, ips, r, static_cast<int>(cnt));
                    for (uint32_t x = 0; x < cnt; ++x)
                        nh[x] = static_cast<uint32_t>(r[x]);
                }
            }
            for (uint32_t x = 0; x < cnt; ++x)
                act(w[i + x], _nh[nh[x] < _nh.size() ? nh[x] : 0], next, k2);
            i = j;
        }
    }

    static bool dec_ttl(uint8_t* ip, uint8_t af) {
        if (af == 6) {
            if (ip[7] <= 1)
                return false;
            --ip[7];
            return true;
        }
        if (ip[8] <= 1)
            return false;
        --ip[8];
        uint16_t c;
        std::memcpy(&c, ip + 10, 2);
        uint32_t s = c + rte_cpu_to_be_16(0x0100);
        c = static_cast<uint16_t>(s + (s >= 0xffff));
        std::memcpy(ip + 10, &c, 2);
        return true;
    }

    void act(work& x, const floor_nh& nh, work* next, uint16_t& k2) {
        rte_mbuf* m = x.m;
        switch (nh.kind) {
        case floor_nh::forward: {
            uint8_t* ip = rte_pktmbuf_mtod_offset(m, uint8_t*, x.l3);
            if (!x.no_ttl && !dec_ttl(ip, x.af))
                break;
            uint8_t* eth = x.l3 >= 14 ? reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(m, static_cast<uint16_t>(x.l3 - 14)))
                                      : reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, static_cast<uint16_t>(14 - x.l3)));
            if (eth == nullptr)
                break;
            std::memcpy(eth, nh.eth, 12);
            eth[12] = x.af == 4 ? 0x08 : 0x86;
            eth[13] = x.af == 4 ? 0x00 : 0xdd;
            return send(nh.port, m);
        }
        case floor_nh::insert: {  // H.Insert: the header moves in front of the SRH, the payload stays
            uint8_t* ip = rte_pktmbuf_mtod_offset(m, uint8_t*, x.l3);
            if (!dec_ttl(ip, 6))
                break;
            alignas(16) uint8_t hdr[40];
            std::memcpy(hdr, ip, 40);
            const uint16_t srh = static_cast<uint16_t>(nh.len - 40);
            rte_pktmbuf_adj(m, x.l3);
            uint8_t* eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, static_cast<uint16_t>(srh + 14)));
            if (eth == nullptr)
                break;
            uint8_t* h = eth + 14;
            std::memcpy(h, nh.tmpl, nh.len);
            std::memcpy(h, hdr, 24);
            const uint32_t plen = (uint32_t{hdr[4]} << 8 | hdr[5]) + srh;
            h[4] = static_cast<uint8_t>(plen >> 8);
            h[5] = static_cast<uint8_t>(plen);
            h[6] = 43;
            h[40] = hdr[6];
            std::memcpy(h + 48, hdr + 24, 16);
            std::memcpy(eth, nh.eth, 12);
            eth[12] = 0x86;
            eth[13] = 0xdd;
            return send(nh.port, m);
        }
        case floor_nh::b6_encaps: {  // End (SL - 1, the DA, hop limit - 1), then the encap below
            uint8_t* ip = rte_pktmbuf_mtod_offset(m, uint8_t*, x.l3);
            uint8_t* srh = ip + 40;
            if (ip[6] != 43 || srh[2] != 4 || srh[3] == 0 || ip[7] <= 1)
                break;
            const uint8_t sl = --srh[3];
            std::memcpy(ip + 24, srh + 8 + 16 * sl, 16);
            --ip[7];
        }
            [[fallthrough]];
        case floor_nh::encap: {
            uint8_t* d = rte_pktmbuf_mtod(m, uint8_t*);
            uint8_t* ip = d + x.l3;
            uint32_t hash;
            uint8_t tc, inner;
            if (nh.l2) {
                hash = fwd::flow_hash_ip<dpdk_crc>(ip, static_cast<uint32_t>(m->data_len - x.l3));
                if (hash == 0)
                    hash = fwd::flow_hash_eth<dpdk_crc>(d);
                inner = fib::ipproto::ethernet;
            } else {
                if (nh.kind == floor_nh::encap && !dec_ttl(ip, x.af))
                    break;
                hash = fwd::flow_hash_ip<dpdk_crc>(ip, static_cast<uint32_t>(m->data_len - x.l3));
                rte_pktmbuf_adj(m, x.l3);
                inner = x.af == 4 ? fib::ipproto::ipip : fib::ipproto::ipv6;
            }
            tc = x.af == 4 ? ip[1] : static_cast<uint8_t>((ip[0] << 4) | (ip[1] >> 4));
            const uint32_t plen = m->pkt_len + nh.len - 40u;
            uint8_t* eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, static_cast<uint16_t>(nh.len + 14)));
            if (eth == nullptr)
                break;
            uint8_t* h = eth + 14;
            std::memcpy(h, nh.tmpl, nh.len);
            const uint32_t w0 = rte_cpu_to_be_32((6u << 28) | (static_cast<uint32_t>(tc) << 20) | fwd::flow_label(hash));
            std::memcpy(h, &w0, 4);
            h[4] = static_cast<uint8_t>(plen >> 8);
            h[5] = static_cast<uint8_t>(plen);
            h[nh.nh_off] = inner;
            const bool second = nh.ecmp2 && fib::ecmp_slot(hash, 2) != 0;
            std::memcpy(eth, second ? nh.eth2 : nh.eth, 12);
            eth[12] = 0x86;
            eth[13] = 0xdd;
            return send(second ? nh.port2 : nh.port, m);
        }
        case floor_nh::end:
        case floor_nh::end_x: {
            uint8_t* ip = rte_pktmbuf_mtod_offset(m, uint8_t*, x.l3);
            uint8_t* srh = ip + 40;
            if (ip[6] != 43 || srh[2] != 4 || srh[3] == 0 || ip[7] <= 1)
                break;
            const uint8_t sl = --srh[3];
            std::memcpy(ip + 24, srh + 8 + 16 * sl, 16);
            --ip[7];
            if (nh.kind == floor_nh::end_x) {  // to the adjacency, its MAC in the nexthop
                uint8_t* eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(m, static_cast<uint16_t>(x.l3 - 14)));
                std::memcpy(eth, nh.eth, 12);
                return send(nh.port, m);
            }
            x.no_ttl = 1;  // the new destination is looked up in the same VRF, hop limit done
            next[k2++] = x;
            return;
        }
        case floor_nh::dt46: {
            uint8_t* ip = rte_pktmbuf_mtod_offset(m, uint8_t*, x.l3);
            const uint8_t proto = ip[6];
            if (proto != 4 && proto != 41)
                break;
            rte_pktmbuf_adj(m, static_cast<uint16_t>(x.l3 + 40));
            next[k2++] = {m, 0, static_cast<uint8_t>(proto == 4 ? 4 : 6), nh.vrf, 0};
            return;
        }
        case floor_nh::dx2: {
            const uint8_t* ip = rte_pktmbuf_mtod_offset(m, const uint8_t*, x.l3);
            if (ip[6] != fib::ipproto::ethernet || m->pkt_len < x.l3 + 40u + 14u)
                break;
            rte_pktmbuf_adj(m, static_cast<uint16_t>(x.l3 + 40));
            return send(nh.port, m);
        }
        case floor_nh::drop: break;
        }
        rte_pktmbuf_free(m);
    }

    void send(uint16_t port, rte_mbuf* m) {
        txq& q = _tx[port];
        q.m[q.n++] = m;
        if (q.n == burst)
            flush(port);
    }
    void flush(uint16_t port) {
        txq& q = _tx[port];
        if (q.n == 0)
            return;
        const uint16_t sent = rte_eth_tx_burst(port, 0, q.m, q.n);
        for (uint16_t i = sent; i < q.n; ++i)
            rte_pktmbuf_free(q.m[i]);
        q.n = 0;
    }

    struct txq {
        uint16_t n = 0;
        rte_mbuf* m[burst];
    };
    floor_lpm6 _kind;
    std::array<floor_vrf, 4> _vrf{};
    std::vector<floor_nh> _nh{floor_nh{}};  // 0: no route
    std::array<uint8_t, RTE_MAX_ETHPORTS> _port_vrf{};
    std::vector<uint16_t> _ports;
    std::array<txq, RTE_MAX_ETHPORTS> _tx{};
};

}  // namespace bench
