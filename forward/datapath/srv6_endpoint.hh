// SRv6 endpoint behaviors (RFC 8986 §4, NEXT-C-SID from RFC 9800 §4.1) applied in place to a
// packet whose destination matched a local SID. One call per packet; it rewrites the mbuf and
// says what the caller does next. See docs/dataplane-endpoint.md.
//
// Contract with the caller:
// - on entry the mbuf data starts at the outer IPv6 header (L2 already removed, version
//   already checked by the input stage) and the destination address is the one that matched
//   the SID;
// - on return the data starts at the header the action names: the outer IPv6 header for
//   forward_v6/send_v6 of End.X, the inner IPv4/IPv6 header after a decapsulation, the inner
//   frame's destination MAC after End.DX2's;
// - hop limits: every action but lookup_* leaves the packet ready to transmit (the endpoint
//   did the RFC 8986 hop-limit check and decrement); lookup_v4/lookup_v6 hand the inner packet
//   to the VRF's ordinary forwarding, which checks and decrements TTL/hop limit like for any
//   received packet.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "rib/addr.hh"
#include "rib/behaviors.hh"
#include "rib/model.hh"
#include "forward/datapath/drop_reason.hh"

struct rte_mbuf;

namespace fwd {

// What the endpoint needs to know about one local SID; filled by the control plane, which
// checked it against the behavior contract (rib::check_contract: a handler, allowed flavors,
// usable NEXT-C-SID lengths). The behavior's row (rib/behaviors.hh) says which handler runs,
// what it decapsulates and whether it sends to an adjacency.
struct sid_params {
    rib::behavior behavior = rib::behavior::end;
    uint32_t flavors = 0;                                // rib::flavor bits: psp, usp, usd, next_csid
    uint8_t lcblock_bits = rib::csid_default.block;      // NEXT-C-SID Locator-Block length (LBL)
    uint8_t lcnode_fn_bits = rib::csid_default.node_fn;  // NEXT-C-SID Locator-Node + Function length (LNFL)
    // VRF the result is looked up in: End.T/End.DT*: the VRF bound to the table; End/End.X
    // (and their USD decapsulation): the VRF the SID itself lives in, normally the default.
    uint32_t vrf = 0;
};

// The contract's handlers process_endpoint() implements (its switch); a unit test checks that
// these are exactly the handlers behavior_table() names.
inline constexpr std::array<rib::dp_handler, 3> implemented_handlers = {rib::dp_handler::next_segment,
                                                                        rib::dp_handler::decap,
                                                                        rib::dp_handler::b6_encaps};

enum class endpoint_action : uint8_t {
    forward_v6,  // outer packet, new DA: look it up in `vrf` and transmit (hop limit done)
    lookup_v4,   // decapsulated IPv4 packet: route it in `vrf` as if received there
    lookup_v6,   // decapsulated IPv6 packet: route it in `vrf` as if received there
    send_v4,     // IPv4 packet to the SID's adjacency (its row's: nh4 for End.DX4, nh6 for
                 // End.X + USD); TTL done
    send_v6,     // IPv6 packet to the SID's adjacency (nh6); hop limit done
    encap_v6,    // End.B6.Encaps: End done (new DA, hop limit done); push the SID's policy as a
                 // new outer header (the nexthop's template), then look up its first SID
    send_l2,     // End.DX2: the decapsulated Ethernet frame, unchanged, out of the SID's oif
    drop,        // count `reason` and free the mbuf
};

struct endpoint_result {
    endpoint_action action = endpoint_action::drop;
    drop_reason reason = drop_reason::sid_unsupported;  // meaningful for drop only
    uint32_t vrf = 0;                                   // meaningful for forward_v6/lookup_*
    bool operator==(const endpoint_result&) const = default;
};

// Applies `p` to `m` in place (rte_pktmbuf_adj/trim and memmove, no allocation). A dropped
// packet may have been partly rewritten; the caller only frees it. The usual packet of each
// behavior takes its short form (srv6_endpoint_short.hh), any other the header walk.
endpoint_result process_endpoint(rte_mbuf* m, const sid_params& p) noexcept;
// The header walk alone: what process_endpoint() does with a packet the short forms decline
// (the worker tries those inline first), and what tests hold the short forms to.
endpoint_result process_endpoint_walk(rte_mbuf* m, const sid_params& p) noexcept;

std::string_view name(endpoint_action a);

}  // namespace fwd
