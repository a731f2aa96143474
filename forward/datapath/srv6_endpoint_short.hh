// The short forms of the endpoint behaviors: the usual packet of each handler decided without
// process_endpoint's header walk, by the same code the walk runs once it has found the headers
// (next_segment_step, decap_inner, decap_l2_inner). process_endpoint() tries them first, and so
// does the worker before it calls the walk (process_endpoint_walk) itself: one implementation
// per behavior, one place that decides.
#pragma once

#include <rte_mbuf.h>

#include "forward/datapath/srv6_decap.hh"
#include "forward/datapath/srv6_endpoint.hh"
#include "forward/datapath/srv6_next_segment.hh"
#include "rib/behaviors.hh"

namespace fwd {

// SID `row` with `flavors`, its VRF `vrf`, on the packet at the data start of `m` (as
// process_endpoint's contract). True with `r` when a short form took it; false with the packet
// untouched otherwise.
[[gnu::always_inline]] inline bool endpoint_short(rte_mbuf* m, const rib::behavior_info& row, uint32_t flavors,
                                                  uint32_t vrf, endpoint_result& r) {
    // Plain branches, not a switch: its jump table would be one more indirect branch per packet.
    const rib::dp_handler h = row.handler;
    if (h == rib::dp_handler::decap)
        return decap_short(m, row, vrf, r);
    if ((h != rib::dp_handler::next_segment && h != rib::dp_handler::b6_encaps) || !next_segment_direct(m, flavors))
        return false;
    // End.B6.Encaps: End's S01-S10, then the policy (srv6_endpoint.cc).
    r = h == rib::dp_handler::next_segment ? next_segment_out(row, vrf)
                                           : endpoint_result{endpoint_action::encap_v6, drop_reason::sid_unsupported, vrf};
    return true;
}

}  // namespace fwd
