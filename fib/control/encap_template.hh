// Pre-built SRv6 headend headers (RFC 8986 §5): the exact bytes of the outer IPv6 header and,
// per mode, the SRH (RFC 8754 §2), with the resolved encapsulation source filled in, ready to be
// prepended. Built by the control thread when routes, the SID list or the source change, never
// per packet. The dataplane writes only:
//   payload length  (bytes 4-5: SRH + inner packet)
//   flow label      (low 20 bits of bytes 1-3, e.g. from the inner flow hash)
//   hop limit       (byte 7; pre-filled with 64)
//   and may rewrite the innermost next header (byte next_header_off; pre-filled from the inner
//   family the nexthop was compiled for: 4, 41, or 143 for the L2 modes).
//
// Modes (rib::encap_mode = SEG6_IPTUN_MODE_*), for the SIDs s[0..n-1] in visiting order:
//   H.Encaps(.L2):     DA = s[0]; SRH lists s[n-1] .. s[0] (reversed, as on the wire),
//                      segments_left = last_entry = n - 1. Always an SRH, even for one SID.
//   H.Encaps.Red(.L2): DA = s[0]; the SRH omits s[0]: lists s[n-1] .. s[1],
//                      segments_left = n - 1, last_entry = n - 2; one SID -> no SRH at all.
//   H.Insert:          refused (srv6d does not insert SRHs into transit packets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "rib/addr.hh"
#include "rib/model.hh"

namespace fib {

namespace ipproto {
constexpr uint8_t ipip = 4;        // IPv4 in IPv6
constexpr uint8_t ipv6 = 41;       // IPv6 in IPv6
constexpr uint8_t routing = 43;    // the SRH
constexpr uint8_t ethernet = 143;  // RFC 8986 §10.1: Ethernet in IPv6 (L2 modes)
}  // namespace ipproto

constexpr size_t ipv6_header_size = 40;
constexpr size_t srh_fixed_size = 8;
constexpr uint8_t srh_routing_type = 4;
constexpr uint8_t encap_default_hop_limit = 64;
// What the headend accepts (forward/datapath/encap_tmpl.hh max_srh_sids: FRR sends at most 8; a template
// is then at most 40 + 8 + 16 * 16 = 304 bytes, within the header mbuf the headend prepends).
constexpr size_t max_srh_segments = 16;

enum class encap_refusal : uint8_t {
    none,
    insert_unsupported,  // H.Insert (SEG6_IPTUN_MODE_INLINE)
    no_segments,         // an empty SID list
    too_many_segments,   // more than max_srh_segments
    no_source,           // the encap source resolves to none: never send from ::
};

std::string_view name(encap_refusal r);

struct encap_template {
    rib::encap_mode mode = rib::encap_mode::encap;
    uint8_t n_segments = 0;       // SIDs in the policy (not in the SRH)
    uint8_t srh_entries = 0;      // SIDs in the SRH (n, n - 1 for .Red, 0 when omitted)
    uint16_t next_header_off = 0; // innermost next header: 6 (no SRH) or 40 (the SRH's)
    std::vector<uint8_t> bytes;   // outer IPv6 + SRH
};

struct encap_build {
    encap_refusal refusal = encap_refusal::none;
    encap_template tmpl;
    bool ok() const { return refusal == encap_refusal::none; }
};

// `inner_proto` is used for the L3 modes (ipproto::ipip or ipv6); L2 modes always carry 143.
encap_build build_encap_template(rib::encap_mode mode, std::span<const rib::ip6_addr> segments, const rib::ip6_addr& source,
                                 uint8_t inner_proto);

bool is_l2(rib::encap_mode m);
bool is_reduced(rib::encap_mode m);

}  // namespace fib
