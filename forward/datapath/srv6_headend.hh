// SRv6 headend (RFC 8986 §5): H.Encaps, H.Encaps.Red, H.Encaps.L2, H.Encaps.L2.Red on an mbuf,
// and H.Insert / H.Insert.Red (an SRH into the packet's own IPv6 header: h_insert_push).
// The outer IPv6 header (+ SRH) comes pre-built: the fib::encap_template stored in the nexthop; per packet we write
// only traffic class, flow label, payload length and the inner type. Inline: this is the hot path.
//
// Contract (docs/dataplane-headend.md):
// - `m` holds the packet as received, data starting at the Ethernet header. `l3_off` is the
//   offset of the inner IP header from the data start (the caller parsed it):
//   L3 modes strip everything before it (the frame's L2 header is not part of the payload);
//   L2 modes keep the whole frame as the payload and use `l3_off` only to find the IP header for
//   the traffic class and flow hash (0 = the frame carries no IP we parsed: hash the MACs).
// - The inner TTL / hop limit is the forwarding stage's business (decremented before encap for
//   routed traffic); the outer hop limit is the template's: fib::encap_default_hop_limit (64),
//   written by the compiler, not configurable.
// - The outer header is prepended into the headroom (no allocation, no copy of the payload) when
//   it fits with `eth_reserve` bytes to spare and the buffer is not shared; otherwise a header
//   mbuf from `ctx.hdr_pool` is chained in front (counted in ctx.hdr_chained).
// - Returns the packet's head mbuf (m, or the chained header mbuf), or nullptr with `why` set;
//   then `m` is untouched and the caller drops it and counts `why`.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <cstring>

#include "forward/datapath/drop_reason.hh"
#include "fib/datapath/encap_template.hh"
#include "forward/datapath/flow_hash.hh"

namespace fwd {

inline constexpr uint16_t ip6_hdr_len = fib::ipv6_header_size;
inline constexpr uint16_t srh_fixed_len = fib::srh_fixed_size;
inline constexpr uint16_t sid_len = fib::sid_size;
inline constexpr uint16_t max_tmpl_len = fib::max_encap_len;
// Headroom left in front of the outer IPv6 header for the Ethernet rewrite that follows.
inline constexpr uint16_t eth_reserve = 14;

// Per-lcore headend state: the fallback pool and its counter. Never shared between lcores.
struct headend_ctx {
    rte_mempool* hdr_pool = nullptr;  // header mbufs for templates longer than the headroom allows
    uint64_t hdr_chained = 0;         // packets that needed a header mbuf
};

// Header pool sized for the longest template plus the usual headroom in front (Ethernet, and
// room to spare). `priv_size` as the packet pools' (the head carries the private area).
rte_mempool* headend_hdr_pool_create(const char* name, unsigned n, int socket, uint16_t priv_size = 0);

// Cold path: the template does not fit in front of the packet. Out of line on purpose.
rte_mbuf* headend_chain(rte_mbuf* m, uint16_t strip, uint16_t len, headend_ctx& ctx, drop_reason& why);

namespace headend_detail {

inline void store_be16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}
inline void store_be32(uint8_t* p, uint32_t v) {
    const uint32_t be = rte_cpu_to_be_32(v);
    std::memcpy(p, &be, sizeof be);
}

// Traffic class of an inner IP header: the whole IPv4 TOS / IPv6 traffic class byte, DSCP and
// ECN alike (RFC 6040 normal mode: the outer starts with the inner's ECN).
inline uint8_t inner_tc(const uint8_t* ip) {
    return ip[0] >> 4 == 4 ? ip[1] : static_cast<uint8_t>((ip[0] << 4) | (ip[1] >> 4));
}
// The same, for a header whose family `af` (4 or 6) is already known: no version read.
inline uint8_t inner_tc(const uint8_t* ip, uint8_t af) {
    return af == 4 ? ip[1] : static_cast<uint8_t>((ip[0] << 4) | (ip[1] >> 4));
}

// Fixed-size pieces, so the compiler emits a few 16-byte moves with no call and no size
// dispatch: the IPv6 header, then the SRH as 8 + 16·k bytes.
inline void copy_tmpl(uint8_t* dst, const uint8_t* src, uint16_t len) {
    std::memcpy(dst, src, ip6_hdr_len);
    if (len == ip6_hdr_len)
        return;
    std::memcpy(dst + ip6_hdr_len, src + ip6_hdr_len, srh_fixed_len);
    for (uint16_t off = ip6_hdr_len + srh_fixed_len; off < len; off += sid_len)
        std::memcpy(dst + off, src + off, sid_len);
}

}  // namespace headend_detail

// Flow hash of the inner packet (flow_hash.hh): the IP header at l3_off, or for L2 frames
// without one, the Ethernet addresses. Bounds-checked: never reads past the first segment.
inline uint32_t inner_flow_hash(const rte_mbuf* m, uint16_t l3_off, bool l2) {
    const uint8_t* data = rte_pktmbuf_mtod(m, const uint8_t*);
    const uint16_t seg = m->data_len;
    if ((!l2 || l3_off != 0) && l3_off < seg) {
        const uint32_t h = flow_hash_ip(data + l3_off, static_cast<uint32_t>(seg - l3_off));
        if (h != 0 || !l2)
            return h;
    }
    return l2 && seg >= 14 ? flow_hash_eth(data) : 0;
}

// The push itself, for a caller that already knows the inner packet: `strip` bytes in front of
// the payload go, `inner_type` is the outer header's next header and `tc` its traffic class.
// The worker's L3 headends call it directly: classify checked the inner header, and its family
// gives the type (h_encaps() below works them out itself).
[[nodiscard, gnu::always_inline]] inline rte_mbuf* h_encaps_push(rte_mbuf* m, uint16_t strip, uint8_t inner_type, uint8_t tc,
                                                                uint32_t hash, const fib::encap_template& t,
                                                                headend_ctx& ctx, drop_reason& why, uint16_t l2_len = 0) {
    using namespace headend_detail;
    const uint16_t len = t.len;  // in a local: the header stores cannot alias it
    const uint32_t out_len = m->pkt_len - strip + len;
    if (unlikely(out_len - ip6_hdr_len > 0xffffu)) {
        why = drop_reason::encap_mtu;  // no jumbograms (RFC 2675) on the outer header
        return nullptr;
    }

    rte_mbuf* head = m;
    // Writing into the headroom is only safe when nobody else sees this buffer.
    if (likely(RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 &&
               m->data_off + strip >= len + eth_reserve)) {
        m->data_off = static_cast<uint16_t>(m->data_off + strip - len - l2_len);
        m->data_len = static_cast<uint16_t>(m->data_len - strip + len + l2_len);
        m->pkt_len = out_len + l2_len;
    } else {
        head = headend_chain(m, strip, len, ctx, why);
        if (head == nullptr)
            return nullptr;
        // The header sits at the end of a buffer with at least RTE_PKTMBUF_HEADROOM in front.
        head->data_off = static_cast<uint16_t>(head->data_off - l2_len);
        head->data_len = static_cast<uint16_t>(head->data_len + l2_len);
        head->pkt_len += l2_len;
    }

    uint8_t* hdr = rte_pktmbuf_mtod_offset(head, uint8_t*, l2_len);
    copy_tmpl(hdr, t.bytes, len);
    store_be32(hdr, (6u << 28) | (static_cast<uint32_t>(tc) << 20) | flow_label(hash));
    store_be16(hdr + 4, static_cast<uint16_t>(out_len - ip6_hdr_len));
    hdr[t.next_header_off] = inner_type;  // read here: one load, not a value kept over the stores
    return head;
}

// H.Insert / H.Insert.Red (the kernel's `encap seg6 mode inline`, seg6_do_srh_inline): the
// template's SRH goes between the packet's IPv6 header (at `strip`, checked by the caller, in
// the first segment) and what follows it. The header moves `srh` bytes towards the front, into
// the headroom; the payload stays where it is. The SRH's next header is the packet's, its
// Segment List[0] the packet's destination; the destination becomes the first SID; payload
// length + srh; source, traffic class, flow label and hop limit stay the packet's. `l2_len`
// as for h_encaps_push(). A short headroom or a shared buffer: the header and the SRH go into
// a header mbuf chained in front (ctx.hdr_chained), as h_encaps_push() does.
[[nodiscard, gnu::always_inline]] inline rte_mbuf* h_insert_push(rte_mbuf* m, uint16_t strip, const fib::encap_template& t,
                                                                headend_ctx& ctx, drop_reason& why, uint16_t l2_len = 0) {
    using namespace headend_detail;
    const uint16_t srh = static_cast<uint16_t>(t.len - ip6_hdr_len);
    uint8_t* ip = rte_pktmbuf_mtod_offset(m, uint8_t*, strip);
    const uint32_t plen = (static_cast<uint32_t>(ip[4]) << 8 | ip[5]) + srh;
    if (unlikely(plen > 0xffffu)) {
        why = drop_reason::encap_mtu;
        return nullptr;
    }
    alignas(16) uint8_t hdr[ip6_hdr_len];  // the header, before the SRH's bytes overwrite it
    std::memcpy(hdr, ip, ip6_hdr_len);

    rte_mbuf* head = m;
    if (likely(RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 && m->data_off + strip >= srh + eth_reserve)) {
        m->data_off = static_cast<uint16_t>(m->data_off + strip - srh - l2_len);
        m->data_len = static_cast<uint16_t>(m->data_len - strip + srh + l2_len);
        m->pkt_len = m->pkt_len - strip + srh + l2_len;
    } else {
        head = headend_chain(m, static_cast<uint16_t>(strip + ip6_hdr_len), t.len, ctx, why);
        if (head == nullptr)
            return nullptr;
        head->data_off = static_cast<uint16_t>(head->data_off - l2_len);
        head->data_len = static_cast<uint16_t>(head->data_len + l2_len);
        head->pkt_len += l2_len;
    }

    uint8_t* out = rte_pktmbuf_mtod_offset(head, uint8_t*, l2_len);
    copy_tmpl(out, t.bytes, t.len);  // the template's DA (the first SID) and SRH
    std::memcpy(out, hdr, 24);       // the packet's version .. source
    store_be16(out + 4, static_cast<uint16_t>(plen));
    out[6] = fib::ipproto::routing;
    out[ip6_hdr_len] = hdr[6];       // the SRH's next header: the packet's
    std::memcpy(out + ip6_hdr_len + srh_fixed_len, hdr + 24, sid_len);  // Segment List[0]: its DA
    return head;
}

// `hash` is the inner flow hash (inner_flow_hash(), or the one the forwarding stage already
// computed for ECMP in the VRF): the outer flow label is flow_label(hash). `l2_len` (0 or up to
// eth_reserve) more bytes are prepended in front of the outer header in the same step, for the
// caller's Ethernet header: the result's data then starts there, unwritten.
[[nodiscard, gnu::always_inline]] inline rte_mbuf* h_encaps(rte_mbuf* m, uint16_t l3_off, uint32_t hash,
                                                           const fib::encap_template& t, headend_ctx& ctx,
                                                           drop_reason& why, uint16_t l2_len = 0) {
    using namespace headend_detail;
    const bool l2 = t.l2 != 0;
    const uint8_t* data = rte_pktmbuf_mtod(m, const uint8_t*);
    const uint16_t seg = m->data_len;
    if (t.insert) {  // H.Insert: an IPv6 header in the first segment
        if (l3_off >= seg || seg - l3_off < ip6_hdr_len || data[l3_off] >> 4 != 6) {
            why = l3_off < seg && data[l3_off] >> 4 == 6 ? drop_reason::ip6_truncated : drop_reason::l3_unknown;
            return nullptr;
        }
        return h_insert_push(m, l3_off, t, ctx, why, l2_len);
    }

    uint8_t tc = 0;
    uint8_t inner_type = fib::ipproto::ethernet;
    uint16_t strip = 0;
    if (!l2) {
        // The forwarding stage validated the inner header; these checks only keep a wrong caller
        // from reading outside the segment.
        const uint32_t avail = l3_off < seg ? static_cast<uint32_t>(seg - l3_off) : 0;
        const uint8_t* ip = data + l3_off;
        const unsigned ver = avail != 0 ? ip[0] >> 4 : 0;
        if (ver == 4 && avail >= 20) {
            inner_type = fib::ipproto::ipip;
        } else if (ver == 6 && avail >= 40) {
            inner_type = fib::ipproto::ipv6;
        } else {
            why = ver == 4 ? drop_reason::ip4_truncated : ver == 6 ? drop_reason::ip6_truncated : drop_reason::l3_unknown;
            return nullptr;
        }
        tc = inner_tc(ip);
        strip = l3_off;
    } else {
        if (seg < 14) {
            why = drop_reason::eth_truncated;
            return nullptr;
        }
        // The frame's IP header, when the caller found one, gives the traffic class too.
        if (l3_off != 0 && l3_off < seg) {
            const uint8_t* ip = data + l3_off;
            const uint32_t avail = static_cast<uint32_t>(seg - l3_off);
            if ((ip[0] >> 4 == 4 && avail >= 20) || (ip[0] >> 4 == 6 && avail >= 40))
                tc = inner_tc(ip);
        }
    }

    return h_encaps_push(m, strip, inner_type, tc, hash, t, ctx, why, l2_len);
}

// The same, computing the inner flow hash itself.
[[nodiscard, gnu::always_inline]] inline rte_mbuf* h_encaps(rte_mbuf* m, uint16_t l3_off, const fib::encap_template& t,
                                                           headend_ctx& ctx, drop_reason& why) {
    return h_encaps(m, l3_off, inner_flow_hash(m, l3_off, t.l2 != 0), t, ctx, why);
}

}  // namespace fwd
