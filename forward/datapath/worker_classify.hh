// The classify stage: a received burst in, one edge out per fate (to look up, with the
// destinations gathered; for the host; refused; for a sub-port), and the L3 header checks it
// and the later stages share (RFC 791/1812, RFC 8200). It reads the input port and the
// adjacency view and writes nothing but the packets and its outputs: a test runs it alone.
#pragma once

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include <cstring>

#include "forward/datapath/adjacency.hh"
#include "forward/datapath/ip4_sum.hh"
#include "forward/datapath/pkt.hh"
#include "forward/datapath/vlan_tag.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// The IPv4 header checksum, from the NIC's verdict when it gave one (RTE_MBUF_F_RX_IP_CKSUM_GOOD
// or _BAD, with RTE_ETH_RX_OFFLOAD_IPV4_CKSUM on), else computed. `nic`: the header is the
// frame's own (not one uncovered by decapsulation, which the NIC never looked at).
inline bool ip4_cksum_ok(const rte_mbuf* m, const uint8_t* ip, uint32_t ihl, bool nic) {
    if (nic) {
        const uint64_t f = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
        if (f == RTE_MBUF_F_RX_IP_CKSUM_GOOD)
            return true;
        if (f == RTE_MBUF_F_RX_IP_CKSUM_BAD)
            return false;
    }
    return ip4_header_sum_ok(ip, ihl);
}

// Checks the L3 header at p.l3 (RFC 791/1812, RFC 8200) and trims Ethernet padding; the whole
// header must be in the first segment. Returns the drop reason or nullopt-like `ok`. `nic`: as
// for ip4_cksum_ok (true at ingress).
[[gnu::always_inline]] inline bool check_l3(rte_mbuf* m, uint16_t l3, uint8_t af, drop_reason& why, bool nic = false) {
    const uint8_t* ip = rte_pktmbuf_mtod_offset(m, const uint8_t*, l3);
    const uint32_t seg = m->data_len > l3 ? m->data_len - l3 : 0;
    const uint32_t total = m->pkt_len > l3 ? m->pkt_len - l3 : 0;
    uint32_t len;
    if (af == 4) {
        if (seg < 20 || ip[0] >> 4 != 4) {
            why = drop_reason::ip4_truncated;
            return false;
        }
        len = load_be16(ip + 2);
        // Almost every header has no options: version 4 and 5 words in one compare, and the
        // checksum over a fixed 20 bytes (no loop for options).
        const bool plain = ip[0] == 0x45;
        const uint32_t ihl = plain ? 20u : (ip[0] & 0xfu) * 4u;
        if (ihl < 20 || ihl > seg || len < ihl || len > total) {
            why = drop_reason::ip4_truncated;
            return false;
        }
        if (!(plain ? ip4_cksum_ok(m, ip, 20, nic) : ip4_cksum_ok(m, ip, ihl, nic))) {
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
inline bool for_host(const uint8_t* ip, uint8_t af) {
    if (af == 6)
        return ip[24] == 0xff || (ip[24] == 0xfe && (ip[25] & 0xc0) == 0x80) || ip[6] == 0;
    return ip[16] >= 224;
}

// Whether the TTL / hop limit lets a routed packet go on (RFC 1812 §5.3.1, RFC 8200 §3).
inline bool ttl_left(const uint8_t* ip, uint8_t af) { return (af == 4 ? ip[8] : ip[7]) > 1; }

// A MAC address as an integer (its 6 bytes in the low bytes of a u64, in memory order): one
// compare instead of a 6-byte memcmp against the port's, whose bytes are read once per burst.
inline uint64_t mac_word(const uint8_t* mac) {
    uint32_t lo;
    uint16_t hi;
    std::memcpy(&lo, mac, 4);  // two loads, not a 6-byte copy into a zeroed u64 (GCC stores and
    std::memcpy(&hi, mac + 4, 2);  // reloads that: a store-forwarding stall per packet)
    return lo | uint64_t{hi} << 32;
}

// A unicast frame for another station's MAC: ports run promiscuous (not every PMD can filter),
// so the check is ours. Broadcast and multicast frames pass (ARP, ND: the host's). `mine`:
// mac_word() of the port's address.
inline bool for_other_station(const uint8_t* eth, uint64_t mine) {
    return (eth[0] & 1) == 0 && mac_word(eth) != mine;
}

// An IEEE 802.3 frame (a length where the ethertype would be) with OSI's LLC header (DSAP =
// SSAP = 0xfe, UI): an IS-IS PDU (ISO 10589), for isisd behind the port's TAP mirror. `len`: the
// frame's bytes in the first segment.
inline bool osi_llc(const uint8_t* eth, uint32_t len) {
    return len >= 17 && load_be16(eth + 12) <= 1500 && eth[14] == 0xfe && eth[15] == 0xfe && eth[16] == 0x03;
}

// The frame almost every packet is, decided with few branches: unicast to the port's address
// (`mine`: mac_word() of it), not tagged (`vlan_flag`: RTE_MBUF_F_RX_VLAN_STRIPPED where the
// port strips tags, else 0), IPv4 without options and with a good checksum or IPv6 without a
// hop-by-hop header, lengths that fit the buffer, a destination that is not the host's.
// Returns its family (4 or 6), Ethernet padding trimmed; 0 for any other frame, which the full
// classify then takes and finds the reason for. For the frames it accepts, the full path's
// checks (for_other_station, check_l3, for_host) all pass: the verdicts are the same.
[[gnu::always_inline]] inline uint8_t plain_frame(rte_mbuf* m, const uint8_t* d, uint64_t mine, uint64_t vlan_flag) {
    const uint32_t seg = m->data_len;
    if (unlikely(seg < eth_len + 20) || mac_word(d) != mine || (m->ol_flags & vlan_flag) != 0)
        return 0;
    const uint8_t* ip = d + eth_len;
    const uint32_t total = m->pkt_len - eth_len;  // >= seg - eth_len >= 20
    const uint32_t head = load_be32(d + 12);      // Ethernet type, then the IP header's first bytes
    uint32_t len;
    uint8_t af;
    if ((head & 0xffffff00u) == 0x08004500u) {  // IPv4, 20-byte header (version 4, IHL 5)
        len = load_be16(ip + 2);
        if (len - 20u > total - 20u || !ip4_cksum_ok(m, ip, 20, true) || for_host(ip, 4))
            return 0;
        af = 4;
    } else if ((head & 0xfffff000u) == 0x86dd6000u) {  // IPv6
        len = 40u + load_be16(ip + 4);
        // for_host() includes a hop-by-hop header (next header 0), so no jumbogram gets here.
        if (seg < eth_len + 40u || len > total || for_host(ip, 6))
            return 0;
        af = 6;
    } else {
        return 0;
    }
    if (unlikely(len < total))
        rte_pktmbuf_trim(m, static_cast<uint16_t>(total - len));  // Ethernet padding
    return af;
}

// Hop limit decrement of a routed packet that ttl_left() let go on (RFC 1812 §5.3.1, RFC 8200
// §3): no second check. IPv4 with the incremental checksum update of RFC 1624 (as the kernel's
// ip_decrease_ttl).
inline void dec_ttl(uint8_t* ip, uint8_t af) {
    if (af == 4) {
        --ip[8];
        uint16_t c;
        std::memcpy(&c, ip + 10, 2);
        uint32_t check = c;
        check += rte_cpu_to_be_16(0x0100);
        c = static_cast<uint16_t>(check + (check >= 0xffff));
        std::memcpy(ip + 10, &c, 2);
        return;
    }
    --ip[7];
}


// ---- The stage

// What classify reads, once per burst.
struct classify_in {
    const port_info* in = nullptr;  // the port the burst came in on (a sub-port's own run: the sub-port)
    const adj_view* av = nullptr;   // its sub-ports
    uint64_t my_mac = 0;            // mac_word() of the port's address
    uint64_t vlan_flag = 0;         // RTE_MBUF_F_RX_VLAN_STRIPPED where the port strips tags, else 0
    const uint8_t* tr = nullptr;    // per packet of the burst: its trace slot + 1 (trace_none: none)
};

inline classify_in classify_input(const port_info& in, const adj_view& av, const uint8_t* tr) {
    return {&in, &av, mac_word(in.mac.bytes), in.rx_vlan_hw ? RTE_MBUF_F_RX_VLAN_STRIPPED : 0, tr};
}

// Its edges. `look`: the packets to look up in the port's VRF, their destinations in keys4 /
// keys6 at their index in `look` (gathered while the header is at hand: a burst of one family,
// the usual case, then needs no second pass to look them up); `host`: frames for the port's
// TAP mirror, as received; `refused`, with `why` at the same index; `sub`: tagged frames for
// the sub-port `sub_in` at the same index, their tag removed.
struct classify_out {
    pkt_vec look;
    uint16_t n4 = 0;  // IPv4 packets in `look`
    uint32_t keys4[burst_size];
    fib::u128 keys6[burst_size];
    pkt_vec host;
    pkt_vec refused;
    drop_reason why[burst_size];
    uint16_t n_sub = 0;
    rte_mbuf* sub[burst_size];
    const port_info* sub_in[burst_size];
    uint64_t rx_bytes = 0;  // of the whole burst

    void refuse(pkt& p, drop_reason r) {
        why[refused.n] = r;
        refused.push(p);
    }
    // Whether `look` holds one family only, its keys all gathered.
    bool gathered() const { return n4 == 0 || n4 == look.n; }
};

inline constexpr int32_t vlan_taken = -1;

// A frame on port c.in (a DPDK port) with an 802.1Q/802.1ad ethertype `type`, or whose tag the
// NIC stripped. Returns the frame's ethertype when it stays the port's (priority-tagged, VLAN
// id 0: untagged now); vlan_taken when it is taken: refused, or put on the `sub` edge for its
// sub-port (untagged). By value, not through a reference: the caller's burst loop keeps its
// ethertype in a register. docs/dataplane.md "VLAN sub-interfaces".
inline int32_t vlan_in(const classify_in& c, pkt& p, uint16_t type, classify_out& out) {
    rte_mbuf* m = p.m;
    uint16_t vid;
    if (c.in->rx_vlan_hw && (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)) {
        vid = m->vlan_tci & 0xfff;
        m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
    } else {
        // A tag on a sub-port's frame is a second one; 802.1ad is a provider's outer tag.
        if (type == ether_qinq || c.in->vlan != 0) {
            out.refuse(p, drop_reason::vlan_qinq);
            return vlan_taken;
        }
        if (m->data_len < eth_len + vlan_len) {
            out.refuse(p, drop_reason::eth_truncated);
            return vlan_taken;
        }
        auto* d = rte_pktmbuf_mtod(m, uint8_t*);
        vid = load_be16(d + 14) & 0xfff;
        std::memmove(d + vlan_len, d, 12);
        rte_pktmbuf_adj(m, vlan_len);
    }
    type = load_be16(rte_pktmbuf_mtod(m, const uint8_t*) + 12);
    const bool stacked = type == ether_vlan || type == ether_qinq;
    const port_info* s = vid == 0 ? nullptr : c.av->sub_port(c.in->port_id, vid);
    // A second tag is the customer's own on a VPWS circuit, which carries every frame as it is
    // (worker_l2vpn.hh); anywhere else stacked VLANs are not supported.
    if (stacked && (s == nullptr || s->l2vpn == 0)) {
        out.refuse(p, drop_reason::vlan_qinq);
        return vlan_taken;
    }
    if (vid == 0)  // priority-tagged (802.1Q §6.9.1): the port's own frame
        return type;
    if (s == nullptr) {
        out.refuse(p, drop_reason::vlan_unknown);
        return vlan_taken;
    }
    out.sub[out.n_sub] = m;
    out.sub_in[out.n_sub++] = s;
    p.m = nullptr;
    return vlan_taken;
}

// Every frame plain_frame() did not take: each check in turn, for its reason. Returns the
// family of a packet to look up (its header checked, padding trimmed), or 0 when the frame went
// to another edge. Out of line: rare, and the burst loop keeps its registers for the common
// frame.
[[gnu::noinline]] inline uint8_t classify_slow(const classify_in& c, pkt& p, classify_out& out) {
    rte_mbuf* m = p.m;
    if (m->data_len < eth_len) {
        out.refuse(p, drop_reason::eth_truncated);
        return 0;
    }
    const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
    uint16_t type = load_be16(d + 12);
    // A tagged frame goes to its sub-port before the MAC check: the sub-port's own run checks
    // it, unless the sub-port is a VPWS circuit, which takes every frame (worker_l2vpn.hh).
    if ((c.in->rx_vlan_hw && (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)) || type == ether_vlan ||
        type == ether_qinq) {
        const int32_t t = vlan_in(c, p, type, out);
        if (t == vlan_taken)
            return 0;
        type = static_cast<uint16_t>(t);
        d = rte_pktmbuf_mtod(m, const uint8_t*);  // VLAN id 0: untagged now, the port's
    }
    if (for_other_station(d, c.my_mac)) {
        out.refuse(p, drop_reason::l2_other_station);
        return 0;
    }
    uint8_t af;
    if (type == ether_ipv4) {
        af = 4;
    } else if (type == ether_ipv6) {
        af = 6;
    } else {
        if (type == ether_arp || osi_llc(d, m->data_len))
            out.host.push(p);
        else
            out.refuse(p, drop_reason::l3_unknown);
        return 0;
    }
    p.af = af;
    drop_reason why{};
    if (!check_l3(m, eth_len, af, why, true)) {
        out.refuse(p, why);
        return 0;
    }
    if (for_host(d + eth_len, af)) {
        out.host.push(p);
        return 0;
    }
    return af;
}

// The stage: `n` received frames into `st` (each packet's state, in the port's VRF) and onto
// the edges of `out` (empty on entry).
[[gnu::always_inline]] inline void classify_burst(const classify_in& c, rte_mbuf** pkts, uint16_t n, pkt* st,
                                                  classify_out& out) {
    uint16_t n_look = 0, n4 = 0;  // in registers; into `out` at the end
    uint64_t rx_bytes = 0;
    // Every packet's state starts as this one, then gets its mbuf and trace slot. The empty asm
    // says it may have changed, so the compiler copies its bytes (two 16-byte stores per
    // packet) instead of storing its known fields one by one.
    alignas(16) pkt start{nullptr, nullptr, 0, c.in->vrf, eth_len, 0, 0, 0, 0};
    asm("" : "+m"(start));
    const uint64_t my_mac = c.my_mac, vlan_flag = c.vlan_flag;
    const uint8_t* const tr = c.tr;
    const auto one = [&](uint16_t x) __attribute__((always_inline)) {
        rx_bytes += pkts[x]->pkt_len;
        pkt& p = st[x];
        p = start;
        p.m = pkts[x];
        p.tr = tr[x];
        const uint8_t* d = rte_pktmbuf_mtod(p.m, const uint8_t*);
        uint8_t af = plain_frame(p.m, d, my_mac, vlan_flag);
        if (unlikely(af == 0)) {
            af = classify_slow(c, p, out);
            if (af == 0)
                return;
            d = rte_pktmbuf_mtod(p.m, const uint8_t*);  // a VLAN tag 0 was stripped: the port's own frame
        }
        p.af = af;
        if (af == 4) {
            out.keys4[n_look] = load_be32(d + eth_len + 16);
            ++n4;
        } else {
            out.keys6[n_look] = fib::key6(d + eth_len + 24);
        }
        out.look.p[n_look++] = &p;
    };
    // Mbuf headers 8 ahead, packet data 4 ahead; the loop is split where those run out, so
    // that the packet loop tests nothing for them.
    uint16_t x = 0;
    for (; x + 8 < n; ++x) {
        rte_prefetch0(pkts[x + 8]);
        rte_prefetch0(rte_pktmbuf_mtod(pkts[x + 4], void*));
        one(x);
    }
    for (; x + 4 < n; ++x) {
        rte_prefetch0(rte_pktmbuf_mtod(pkts[x + 4], void*));
        one(x);
    }
    for (; x < n; ++x)
        one(x);
    out.look.n = n_look;
    out.n4 = n4;
    out.rx_bytes = rx_bytes;
}

}  // namespace fwd
