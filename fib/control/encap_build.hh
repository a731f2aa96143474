// Pre-built SRv6 headend headers (RFC 8986 §5): the exact bytes of the outer IPv6 header and,
// per mode, the SRH (RFC 8754 §2), with the resolved encapsulation source filled in, ready to be
// prepended. Built by the control thread when routes, the SID list or the source change, never
// per packet. The dataplane writes only:
//   traffic class   (bits 4-11 of bytes 0-1: the inner's TOS / traffic class)
//   flow label      (low 20 bits of bytes 1-3, e.g. from the inner flow hash)
//   payload length  (bytes 4-5: SRH + inner packet)
//   and may rewrite the innermost next header (byte next_header_off; pre-filled from the inner
//   family the nexthop was compiled for: 4, 41, or 143 for the L2 modes).
// The hop limit (byte 7) is encap_default_hop_limit (64), never written per packet.
//
// Modes (rib::encap_mode = SEG6_IPTUN_MODE_*), for the SIDs s[0..n-1] in visiting order:
//   H.Encaps(.L2):     DA = s[0]; SRH lists s[n-1] .. s[0] (reversed, as on the wire),
//                      segments_left = last_entry = n - 1. Always an SRH, even for one SID.
//   H.Encaps.Red(.L2): DA = s[0]; the SRH omits s[0]: lists s[n-1] .. s[1],
//                      segments_left = n - 1, last_entry = n - 2; one SID -> no SRH at all.
//   H.Insert(.Red):    no outer header: the SRH goes after the packet's own IPv6 header, its
//                      Segment List[0] the packet's destination, the destination s[0]
//                      (build_insert_template in the .cc says the layout).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fib/datapath/encap_template.hh"
#include "rib/addr.hh"
#include "rib/model.hh"

namespace fib {

enum class encap_refusal : uint8_t {
    none,
    insert_unsupported,  // H.Insert on an IPv4 route (the kernel refuses it too)
    no_segments,         // an empty SID list
    too_many_segments,   // more than max_srh_segments
    no_source,           // the encap source resolves to none: never send from ::
};

std::string_view name(encap_refusal r);

struct encap_build {
    encap_refusal refusal = encap_refusal::none;
    encap_template tmpl;
    bool ok() const { return refusal == encap_refusal::none; }
};

// THE place the resolved encapsulation source enters a header: the template stored as is in
// the compiled nexthop. `inner_proto` is used for the L3 modes (ipproto::ipip or ipv6); L2 modes
// always carry 143.
encap_build build_encap_template(rib::encap_mode mode, std::span<const rib::ip6_addr> segments, const rib::ip6_addr& source,
                                 uint8_t inner_proto);

bool is_l2(rib::encap_mode m);
bool is_reduced(rib::encap_mode m);
bool is_insert(rib::encap_mode m);  // H.Insert, H.Insert.Red

}  // namespace fib
