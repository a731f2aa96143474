// The router's own addresses in a VRF, reached through the VPN (decapsulated, so not a packet
// the host can be handed as received). docs/host-path.md "Own addresses through the VPN".
#pragma once

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <algorithm>

#include "forward/datapath/icmp.hh"
#include "forward/datapath/vlan_tag.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

namespace local_detail {

// RFC 1624 eq. 3: the checksum after one 16-bit word of the summed data changed.
inline void cksum_adjust(uint8_t* ck, uint16_t old_word, uint16_t new_word) {
    uint32_t sum = static_cast<uint16_t>(~load_be16(ck)) + static_cast<uint32_t>(static_cast<uint16_t>(~old_word)) + new_word;
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    const uint16_t c = static_cast<uint16_t>(~sum);
    ck[0] = static_cast<uint8_t>(c >> 8);
    ck[1] = static_cast<uint8_t>(c);
}

// An echo request (RFC 792 type 8, RFC 4443 type 128) to `ip`, unfragmented, whole in `seg`
// bytes: turned into its echo reply in place (addresses swapped, hop limit 64, checksums
// adjusted: the ICMPv6 pseudo-header sum does not change when source and destination swap).
inline bool echo_reply_in_place(uint8_t* ip, uint32_t seg, bool v4) {
    if (v4) {
        const uint32_t ihl = (ip[0] & 0xfu) * 4u;
        if (ip[9] != 1 || seg < ihl + 8 || ip[ihl] != 8 || ((ip[6] & 0x3f) << 8 | ip[7]) != 0)
            return false;
        uint8_t a[4];
        std::memcpy(a, ip + 12, 4);
        std::memcpy(ip + 12, ip + 16, 4);
        std::memcpy(ip + 16, a, 4);
        ip[8] = icmp::hop_limit;
        ip[10] = ip[11] = 0;
        const uint16_t c = rte_ipv4_cksum(reinterpret_cast<const rte_ipv4_hdr*>(ip));  // options included (IHL)
        std::memcpy(ip + 10, &c, 2);
        uint8_t* icmp = ip + ihl;
        const uint16_t old_word = load_be16(icmp);
        icmp[0] = 0;
        cksum_adjust(icmp + 2, old_word, load_be16(icmp));
        return true;
    }
    if (ip[6] != 58 || seg < 48 || ip[40] != 128)
        return false;
    uint8_t a[16];
    std::memcpy(a, ip + 8, 16);
    std::memcpy(ip + 8, ip + 24, 16);
    std::memcpy(ip + 24, a, 16);
    ip[7] = icmp::hop_limit;
    uint8_t* icmp = ip + 40;
    const uint16_t old_word = load_be16(icmp);
    icmp[0] = 129;
    cksum_adjust(icmp + 2, old_word, load_be16(icmp));
    return true;
}

}  // namespace local_detail

inline bool worker::is_own(const pkt& p) const {
    const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
    return p.af == 4 ? _v.av->is_own(p.vrf, rib::family::ipv4, ip + 16) : _v.av->is_own(p.vrf, rib::family::ipv6, ip + 24);
}

// A packet for an own address of p.vrf that was rewritten on its way (decapsulated): echo
// requests are answered here, routed back in the VRF (the host's view of the VRF is not to be
// relied on: without VRF devices all mirrors share the kernel's main table); anything else goes
// to the host through the mirror of the port that carries the address, within that port's
// punt rate.
inline void worker::to_own(pkt& p) {
    rte_mbuf* m = p.m;
    const bool v4 = p.af == 4;
    uint8_t* ip = rte_pktmbuf_mtod_offset(m, uint8_t*, p.l3);
    const uint32_t seg = m->data_len - p.l3u();
    const bool writable = !RTE_MBUF_CLONED(m) && rte_mbuf_refcnt_read(m) == 1 &&
                          (!RTE_MBUF_HAS_EXTBUF(m) || rte_mbuf_ext_refcnt_read(m->shinfo) == 1);
    if (writable && _next != nullptr && _pol.icmp_rate > 0 && m->pkt_len - p.l3u() == seg) {
        const uint64_t now = rte_rdtsc();
        _pol.icmp.tokens += static_cast<double>(now - _pol.icmp.last) * _pol.icmp_rate / _pol.tsc_hz;
        _pol.icmp.last = now;
        if (_pol.icmp.tokens > _pol.icmp_burst)
            _pol.icmp.tokens = _pol.icmp_burst;
        uint8_t probe[64];
        const uint32_t look = std::min<uint32_t>(seg, sizeof probe);
        std::memcpy(probe, ip, look);  // decide on a copy: a refused request stays as received
        if (local_detail::echo_reply_in_place(probe, look, v4)) {
            if (_pol.icmp.tokens < 1.0) {
                _c.icmp.rate_limited.add(1);
                return drop(p, drop_reason::punt_policed);
            }
            _pol.icmp.tokens -= 1.0;
            local_detail::echo_reply_in_place(ip, seg, v4);
            _c.icmp.sent[static_cast<size_t>(v4 ? icmp_kind::ip4_echo_reply : icmp_kind::ip6_echo_reply)].add(1);
            p.flags = f_no_ttl | f_icmp;
            p.hash = 0;
            p.lookups = 0;
            _next->push(p);
            return;
        }
    }
    const uint8_t* dst = ip + (v4 ? 16 : 24);
    const port_info* port = _v.av->own_port(p.vrf, v4 ? rib::family::ipv4 : rib::family::ipv6, dst);
    if (port == nullptr || port->tap_port == port_none)
        return drop(p, drop_reason::punt_no_host);
    token_bucket& b = _pol.punt[port->port_id];
    const uint64_t now = rte_rdtsc();
    b.tokens += static_cast<double>(now - b.last) * port->punt_rate / _pol.tsc_hz;
    b.last = now;
    if (b.tokens > port->punt_burst)
        b.tokens = port->punt_burst;
    if (b.tokens < 1.0)
        return drop(p, drop_reason::punt_policed);
    // As if the port had received it from itself: the mirror (the port's MAC) takes it as its own.
    uint8_t* eth;
    if (p.l3 >= eth_len)
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(m, static_cast<uint16_t>(p.l3 - eth_len)));
    else
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, static_cast<uint16_t>(eth_len - p.l3)));
    if (eth == nullptr)
        return drop(p, drop_reason::no_headroom);
    b.tokens -= 1.0;
    std::memcpy(eth, port->mac.bytes, 6);
    std::memcpy(eth + 6, port->mac.bytes, 6);
    eth[12] = static_cast<uint8_t>((v4 ? ether_ipv4 : ether_ipv6) >> 8);
    eth[13] = static_cast<uint8_t>(v4 ? ether_ipv4 : ether_ipv6);
    // A sub-port whose mirror is a VLAN device on the parent's TAP: the kernel needs the tag.
    if (port->tap_tagged && vlan_push(m, port->vlan) == nullptr)
        return drop(p, drop_reason::no_headroom);
    _c.ports[port->port_id].punted.add(1);
    enqueue(port->tap_port, m);
    p.m = nullptr;
}

}  // namespace fwd
