// End / End.X / End.T (RFC 8986 §4.1-4.3): the next-segment step both process_endpoint's walk and
// the short form for the usual transit packet (no header walk) run.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <cstring>

#include "forward/datapath/ip6_ext.hh"
#include "forward/datapath/srh.hh"
#include "forward/datapath/srv6_endpoint.hh"
#include "rib/behaviors.hh"

namespace fwd {

// Where End, End.X and End.T send the packet once its destination is updated: the row's
// adjacency (End.X), else a lookup in `vrf` (RFC 8986 §4.1 S15, §4.2, §4.3).
constexpr endpoint_result next_segment_out(const rib::behavior_info& row, uint32_t vrf) {
    if (row.adjacency != 0)
        return {endpoint_action::send_v6, drop_reason::sid_unsupported, 0};
    return {endpoint_action::forward_v6, drop_reason::sid_unsupported, vrf};
}

// RFC 8986 §4.1 S12-S14, the one implementation (process_endpoint's walk and the short form
// below): hop limit - 1, Segments Left - 1, the next segment into the destination. The caller
// checked S05-S11. Returns the new Segments Left.
[[gnu::always_inline]] inline uint8_t next_segment_step(uint8_t* ip, srh_view& srh) {
    --ip[7];
    const auto sl = static_cast<uint8_t>(srh.segments_left() - 1);
    srh.set_segments_left(sl);
    std::memcpy(ip + 24, srh.segment(sl), 16);
    return sl;
}

// RFC 8986 §4.1 S05-S14 for the packet a transit SID sees most: the SRH right after the IPv6
// header, Segments Left > 0, hop limit > 1, all in one segment whose length is the packet's
// (40 + Payload Length: classify trimmed any link padding). Applies S12-S14 (hop limit - 1,
// Segments Left - 1, the next segment into the destination) and returns true. Anything else
// returns false with the packet untouched, and the walk decides it with its reasons:
// other extension headers, a malformed or foreign routing header, Segments Left 0, an expiring
// hop limit, PSP at the last segment, NEXT-C-SID. So both paths give the same bytes and the
// same verdicts (tests/unit/forward/next_segment_test.cc holds them to it).
[[gnu::always_inline]] inline bool next_segment_direct(rte_mbuf* m, uint32_t flavors) {
    if ((flavors & rib::flavor::next_csid) != 0 || m->nb_segs != 1)
        return false;
    uint8_t* ip = rte_pktmbuf_mtod(m, uint8_t*);
    const uint32_t len = m->data_len;
    if (len < ip6::header_len + srh_view::fixed_size || ip[ip6::nh_field] != ip6::proto::routing ||
        ip6::header_len + (static_cast<uint32_t>(ip[4]) << 8 | ip[5]) != len || ip[7] <= 1)
        return false;
    srh_view srh;
    if (srh_view::make(ip + ip6::header_len, len - ip6::header_len, srh) != srh_status::ok || !srh.is_srh() ||
        srh.segments_left() == 0 || srh.validate() != srh_status::ok)
        return false;
    if (srh.segments_left() == 1 && (flavors & rib::flavor::psp) != 0)  // the SRH goes: the walk pops it
        return false;
    next_segment_step(ip, srh);
    return true;
}

}  // namespace fwd
