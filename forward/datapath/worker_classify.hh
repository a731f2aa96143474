// Classify: L3 header checks, what belongs to the host, own addresses, TTL (RFC 791/1812, RFC 8200).
#pragma once

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "forward/datapath/ip4_sum.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

inline bool worker::is_own(const pkt& p) const {
    const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
    return p.af == 4 ? _av->is_own(p.vrf, rib::family::ipv4, ip + 16) : _av->is_own(p.vrf, rib::family::ipv6, ip + 24);
}

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

}  // namespace fwd
