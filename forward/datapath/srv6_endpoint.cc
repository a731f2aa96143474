#include "forward/datapath/srv6_endpoint.hh"

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>

#include "forward/datapath/ip6_ext.hh"
#include "forward/datapath/srh.hh"
#include "forward/datapath/srv6_decap.hh"
#include "forward/datapath/srv6_endpoint_short.hh"
#include "forward/datapath/srv6_next_segment.hh"

namespace fwd {
namespace {

namespace flv = rib::flavor;

constexpr uint32_t plen_off = 4;  // IPv6 Payload Length
constexpr uint32_t hl_off = 7;    // IPv6 Hop Limit
constexpr uint32_t da_off = 24;   // IPv6 Destination Address

constexpr endpoint_result dropped(drop_reason r) { return {endpoint_action::drop, r, 0}; }
constexpr endpoint_result to(endpoint_action a, uint32_t vrf = 0) {
    return {a, drop_reason::sid_unsupported, vrf};
}

inline uint16_t load16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline void store16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}

// --- NEXT-C-SID arithmetic on the 128-bit destination (RFC 9800 §4.1.1)

struct u128 {
    uint64_t hi;
    uint64_t lo;
};

inline u128 load128(const uint8_t* p) {
    uint64_t hi;
    uint64_t lo;
    std::memcpy(&hi, p, 8);
    std::memcpy(&lo, p + 8, 8);
    return {rte_be_to_cpu_64(hi), rte_be_to_cpu_64(lo)};
}

inline void store128(uint8_t* p, u128 v) {
    const uint64_t hi = rte_cpu_to_be_64(v.hi);
    const uint64_t lo = rte_cpu_to_be_64(v.lo);
    std::memcpy(p, &hi, 8);
    std::memcpy(p + 8, &lo, 8);
}

inline u128 shl(u128 v, uint32_t n) {
    if (n == 0)
        return v;
    if (n >= 128)
        return {0, 0};
    if (n >= 64)
        return {v.lo << (n - 64), 0};
    return {(v.hi << n) | (v.lo >> (64 - n)), v.lo << n};
}

// The `n` most significant bits set.
inline u128 top_bits(uint32_t n) {
    if (n == 0)
        return {0, 0};
    if (n >= 128)
        return {~0ull, ~0ull};
    if (n >= 64)
        return {~0ull, n == 64 ? 0 : ~0ull << (128 - n)};
    return {~0ull << (64 - n), 0};
}

// DA.Argument is bits [LBL+LNFL..127].
inline bool csid_arg_zero(u128 da, const sid_params& p) {
    const u128 arg = shl(da, static_cast<uint32_t>(p.lcblock_bits) + p.lcnode_fn_bits);
    return (arg.hi | arg.lo) == 0;
}

// N05-N06: the argument moves to bits [LBL..LBL+AL-1] (over the node's own C-SID) and the
// freed low LNFL bits become zero; the block stays.
//
//   before  | block (LBL) | node+fn (LNFL) | next C-SIDs ... (AL)      |
//   after   | block (LBL) | next C-SIDs ... (AL)      | 0 ... (LNFL)   |
inline u128 csid_advance(u128 da, const sid_params& p) {
    const u128 keep = top_bits(p.lcblock_bits);
    const u128 moved = shl(da, p.lcnode_fn_bits);
    return {(da.hi & keep.hi) | (moved.hi & ~keep.hi), (da.lo & keep.lo) | (moved.lo & ~keep.lo)};
}

// --- packet state shared by the steps of one call

struct packet {
    rte_mbuf* m;
    uint8_t* ip;   // outer IPv6 header
    uint32_t len;  // readable bytes of the L3 packet in the first segment
    uint32_t l3;   // 40 + Payload Length (the mbuf holds exactly this many bytes)
    bool segmented() const { return len < l3; }
};

endpoint_result ext_drop(ip6::ext_status st, const ip6::ext_cursor& c, const packet& k) {
    switch (st) {
    case ip6::ext_status::truncated:
        if (k.segmented())
            return dropped(drop_reason::hdr_segmented);
        return dropped(c.nh == ip6::proto::routing ? drop_reason::srh_truncated : drop_reason::ext_hdr_chain);
    case ip6::ext_status::fragment:
        return dropped(drop_reason::ip6_fragmented);
    case ip6::ext_status::ok:
    case ip6::ext_status::too_long:
    case ip6::ext_status::hbh_misplaced:
        break;
    }
    return dropped(drop_reason::ext_hdr_chain);
}

endpoint_result srh_drop(srh_status st, const packet& k) {
    switch (st) {
    case srh_status::truncated:
        return dropped(k.segmented() ? drop_reason::hdr_segmented : drop_reason::srh_truncated);
    case srh_status::bad_len:
        return dropped(drop_reason::srh_bad_len);
    case srh_status::segments_left:
    case srh_status::ok:
        break;
    }
    return dropped(drop_reason::srh_segments_left);
}

// RFC 8986 §4.16.1 S14.2-S14.4 (PSP): the SRH goes, the headers before it move forward over
// it, the preceding Next Header takes the SRH's, Payload Length shrinks by its size.
void pop_srh(packet& k, const ip6::ext_cursor& at, const srh_view& srh) {
    const uint32_t n = srh.length();
    k.ip[at.nh_off] = srh.next_header();
    store16(k.ip + plen_off, static_cast<uint16_t>(load16(k.ip + plen_off) - n));
    std::memmove(k.ip + n, k.ip, at.off);
    rte_pktmbuf_adj(k.m, static_cast<uint16_t>(n));
}

// Which inner families a decapsulation accepts and where the result goes.
enum class decap_to : uint8_t { lookup, adjacency };

// Removes the outer IPv6 header with all its extension headers (RFC 8986 §4.4 S02 and
// siblings). `c` is anywhere before the upper-layer header; the walk continues from there.
// An upper layer that is not an accepted family is dropped with `not_ip`.
endpoint_result decapsulate(packet& k, ip6::ext_cursor c, const sid_params& p, bool v4_ok, bool v6_ok,
                            decap_to where, drop_reason not_ip = drop_reason::sid_bad_inner) {
    const ip6::ext_status st = ip6::ext_walk(k.ip, k.len, c, false);
    if (st != ip6::ext_status::ok)
        return ext_drop(st, c, k);
    const bool v4 = c.nh == ip6::proto::ipv4;
    if (!(v4 ? v4_ok : (c.nh == ip6::proto::ipv6 && v6_ok)))
        return dropped(not_ip);

    return decap_inner(k.m, k.ip, c.off, k.l3, k.len, v4, where == decap_to::adjacency, p.vrf);
}

// End.DX2 (RFC 8986 §4.9) S05-S06: the outer IPv6 header and its extension headers go, the
// Ethernet frame after them leaves unchanged (the worker sends it out of the SID's oif). As the
// kernel's input_action_end_dx2: the upper layer must be Ethernet (143), the frame at least a
// header long, and its type field a type (>= 0x0600), not an 802.3 length.
endpoint_result decapsulate_l2(packet& k, ip6::ext_cursor c) {
    const ip6::ext_status st = ip6::ext_walk(k.ip, k.len, c, false);
    if (st != ip6::ext_status::ok)
        return ext_drop(st, c, k);
    if (c.nh != ip6::proto::ethernet)
        return dropped(drop_reason::sid_bad_inner);
    return decap_l2_inner(k.m, k.ip, c.off, k.l3, k.len);
}

constexpr decap_to decap_target(const rib::behavior_info& row) {
    return row.adjacency != 0 ? decap_to::adjacency : decap_to::lookup;
}

// RFC 8986 §4.1.1 (upper-layer header at an End/End.X/End.T SID): the dataplane terminates
// no upper layer, so without USD the packet is dropped with `otherwise`; with USD
// (§4.16.3) an inner IPv4/IPv6 packet is decapsulated, anything else still ends as §4.1.1
// says. USP (§4.16.2) would pop the SRH first, which changes nothing here: decapsulation
// removes every extension header anyway and a dropped packet needs no pop.
endpoint_result upper_layer(packet& k, const ip6::ext_cursor& c, const sid_params& p, const rib::behavior_info& row,
                            drop_reason otherwise) {
    if ((p.flavors & flv::usd) == 0)
        return dropped(otherwise);
    return decapsulate(k, c, p, row.decap & rib::decap::v4, row.decap & rib::decap::v6, decap_target(row), otherwise);
}

// End, End.X, End.T (RFC 8986 §4.1-4.3) with PSP/USP/USD (§4.16) and NEXT-C-SID (RFC 9800).
endpoint_result next_segment(packet& k, const sid_params& p, const rib::behavior_info& row) {
    if ((p.flavors & flv::next_csid) != 0) {
        // RFC 9800 §4.1.1: runs before any extension header but HBH/DestOpt is looked at, so
        // a shift needs neither an SRH nor a walk; Segments Left is not touched.
        const u128 da = load128(k.ip + da_off);
        if (!csid_arg_zero(da, p)) {
            if (k.ip[hl_off] <= 1)
                return dropped(drop_reason::ttl_expired);
            store128(k.ip + da_off, csid_advance(da, p));
            --k.ip[hl_off];
            return next_segment_out(row, p.vrf);
        }
        // A zero argument: the last C-SID of this container; classic End processing follows.
    }

    ip6::ext_cursor c = ip6::ext_begin(k.ip);
    const ip6::ext_status st = ip6::ext_walk(k.ip, k.len, c, true);
    if (st != ip6::ext_status::ok)
        return ext_drop(st, c, k);
    if (c.nh != ip6::proto::routing)
        return upper_layer(k, c, p, row, drop_reason::srh_missing);

    srh_view srh;
    if (const srh_status s = srh_view::make(k.ip + c.off, k.len - c.off, srh); s != srh_status::ok)
        return srh_drop(s, k);
    if (!srh.is_srh()) {
        // RFC 8200 §4.4: an unknown routing type is ignored only when Segments Left is 0.
        if (srh.segments_left() != 0)
            return dropped(drop_reason::rh_unsupported);
        return upper_layer(k, c, p, row, drop_reason::srh_missing);
    }
    // S02-S04: Segments Left 0 means the packet ends here.
    if (srh.segments_left() == 0)
        return upper_layer(k, c, p, row, drop_reason::srh_sl_zero);
    // S05-S07 before S08-S11, in the RFC's order.
    if (k.ip[hl_off] <= 1)
        return dropped(drop_reason::ttl_expired);
    if (const srh_status s = srh.validate(); s != srh_status::ok)
        return srh_drop(s, k);
    // S12-S14.
    const uint8_t sl = next_segment_step(k.ip, srh);
    if (sl == 0 && (p.flavors & flv::psp) != 0)
        pop_srh(k, c, srh);
    return next_segment_out(row, p.vrf);
}

// End.DX2, End.DX4, End.DX6, End.DT4, End.DT6, End.DT46 (RFC 8986 §4.4-4.9); with NEXT-C-SID
// they are the same (the SID is the last one of its container, RFC 9800 §4.1).
endpoint_result decap(packet& k, const sid_params& p, const rib::behavior_info& row) {
    ip6::ext_cursor c = ip6::ext_begin(k.ip);
    const ip6::ext_status st = ip6::ext_walk(k.ip, k.len, c, true);
    if (st != ip6::ext_status::ok)
        return ext_drop(st, c, k);
    if (c.nh == ip6::proto::routing) {
        srh_view srh;
        if (const srh_status s = srh_view::make(k.ip + c.off, k.len - c.off, srh); s != srh_status::ok)
            return srh_drop(s, k);
        if (srh.is_srh()) {
            if (const srh_status s = srh.validate(); s != srh_status::ok)
                return srh_drop(s, k);
            // S02-S04: decapsulation only at the end of the segment list.
            if (srh.segments_left() != 0)
                return dropped(drop_reason::srh_sl_nonzero);
        } else if (srh.segments_left() != 0) {
            return dropped(drop_reason::rh_unsupported);
        }
    }
    if (row.decap & rib::decap::eth)
        return decapsulate_l2(k, c);
    // S05-S06: the families the row decapsulates; DX to its adjacency, DT into its VRF.
    return decapsulate(k, c, p, row.decap & rib::decap::v4, row.decap & rib::decap::v6, decap_target(row));
}

}  // namespace

endpoint_result process_endpoint(rte_mbuf* m, const sid_params& p) noexcept {
    const rib::behavior_info* row = rib::find_behavior(p.behavior);
    endpoint_result r;
    if (row != nullptr && endpoint_short(m, *row, p.flavors, p.vrf, r))
        return r;
    return process_endpoint_walk(m, p);
}

endpoint_result process_endpoint_walk(rte_mbuf* m, const sid_params& p) noexcept {
    const uint32_t total = rte_pktmbuf_pkt_len(m);
    if (total < ip6::header_len)
        return dropped(drop_reason::ip6_truncated);
    if (rte_pktmbuf_data_len(m) < ip6::header_len)
        return dropped(drop_reason::hdr_segmented);
    auto* ip = rte_pktmbuf_mtod(m, uint8_t*);
    const uint32_t l3 = ip6::header_len + load16(ip + plen_off);
    if (l3 > total)
        return dropped(drop_reason::ip6_truncated);
    // Link-layer padding past the IPv6 packet would end up inside a decapsulated one.
    if (l3 < total && (total - l3 > UINT16_MAX || rte_pktmbuf_trim(m, static_cast<uint16_t>(total - l3)) != 0))
        return dropped(drop_reason::ip6_truncated);
    packet k{m, ip, std::min<uint32_t>(rte_pktmbuf_data_len(m), l3), l3};

    // The contract's handler ids to their code (rib/behaviors.hh). A behavior without a
    // handler never gets here (the compiler refuses its SID); the drop is for safety.
    const rib::behavior_info* row = rib::find_behavior(p.behavior);
    switch (row ? row->handler : rib::dp_handler::none) {
    case rib::dp_handler::next_segment:
        return next_segment(k, p, *row);
    case rib::dp_handler::decap:
        return decap(k, p, *row);
    case rib::dp_handler::b6_encaps: {
        // RFC 8986 §4.13 S01-S10 are End's (§4.1): the same code, End's row (no adjacency, no
        // USD: at SL 0 it is refused as End's is); then the caller pushes the policy (S11-S15).
        endpoint_result r = next_segment(k, p, *rib::find_behavior(rib::behavior::end));
        if (r.action == endpoint_action::forward_v6)
            r.action = endpoint_action::encap_v6;
        return r;
    }
    case rib::dp_handler::none:
        break;
    }
    return dropped(drop_reason::sid_unsupported);
}

std::string_view name(endpoint_action a) {
    switch (a) {
    case endpoint_action::forward_v6:
        return "forward_v6";
    case endpoint_action::lookup_v4:
        return "lookup_v4";
    case endpoint_action::lookup_v6:
        return "lookup_v6";
    case endpoint_action::send_v4:
        return "send_v4";
    case endpoint_action::send_v6:
        return "send_v6";
    case endpoint_action::encap_v6:
        return "encap_v6";
    case endpoint_action::send_l2:
        return "send_l2";
    case endpoint_action::drop:
        return "drop";
    }
    return "?";
}

}  // namespace fwd
