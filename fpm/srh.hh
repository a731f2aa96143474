// The IPv6 Segment Routing Header (RFC 8754 §2) as zebra embeds it in seg6 and seg6local
// encaps: struct ipv6_sr_hdr {nexthdr, hdrlen, type=4, segments_left, first_segment, flags,
// u16 tag} followed by the segments, last SID first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rib/addr.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/nl_attr.hh"

namespace fpm {

constexpr size_t srh_fixed_size = 8;
constexpr uint8_t srh_routing_type = 4;

// `srh` must be exactly the header plus its hdrlen*8 bytes, as the kernel requires. On success
// `visiting` holds the SIDs in visiting order (segments[0] = the first SID, the initial DA);
// trailing TLVs are skipped. On failure it reports seg6_bad_srh/seg6_no_segments, leaves
// `visiting` untouched and returns false.
bool decode_srh(nl::bytes srh, decode_ctx& ctx, std::vector<rib::ip6_addr>& visiting);

}  // namespace fpm
