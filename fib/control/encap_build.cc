#include "fib/control/encap_build.hh"

#include <algorithm>
#include <cstring>
#include <vector>

namespace fib {

std::string_view name(encap_refusal r) {
    switch (r) {
    case encap_refusal::none: return "none";
    case encap_refusal::insert_unsupported: return "encap_insert_unsupported";
    case encap_refusal::no_segments: return "encap_no_segments";
    case encap_refusal::too_many_segments: return "encap_too_many_segments";
    case encap_refusal::no_source: return "encap_no_source";
    }
    return "unknown";
}

bool is_l2(rib::encap_mode m) { return m == rib::encap_mode::l2encap || m == rib::encap_mode::l2encap_red; }
bool is_reduced(rib::encap_mode m) {
    return m == rib::encap_mode::encap_red || m == rib::encap_mode::l2encap_red || m == rib::encap_mode::inline_red;
}
bool is_insert(rib::encap_mode m) { return m == rib::encap_mode::inline_srh || m == rib::encap_mode::inline_red; }

namespace {

// H.Insert as the kernel's seg6_do_srh_inline does it with iproute2's `mode inline` SRH: the SRH
// lists a slot for the packet's destination, then the SIDs; the destination becomes the first
// SID. H.Insert.Red leaves the first SID out of the SRH (it is in the destination), as
// H.Encaps.Red does (RFC 8986 §5.2). For the SIDs s[0..n-1] in visiting order:
//   H.Insert:     [DA, s[n-1] .. s[0]], segments_left = last_entry = n
//   H.Insert.Red: [DA, s[n-1] .. s[1]], segments_left = n, last_entry = n - 1
// No source: the packet keeps its own.
encap_build build_insert_template(rib::encap_mode mode, std::span<const rib::ip6_addr> segments) {
    encap_build out;
    if (segments.empty()) {
        out.refusal = encap_refusal::no_segments;
        return out;
    }
    const size_t n = segments.size();
    const size_t entries = is_reduced(mode) ? n : n + 1;
    if (entries > max_srh_segments) {
        out.refusal = encap_refusal::too_many_segments;
        return out;
    }
    auto& t = out.tmpl;
    t.mode = static_cast<uint8_t>(mode);
    t.insert = 1;
    t.n_segments = static_cast<uint8_t>(n);
    t.srh_entries = static_cast<uint8_t>(entries);
    t.inner_proto = ipproto::ipv6;
    t.len = static_cast<uint16_t>(ipv6_header_size + srh_fixed_size + sid_size * entries);
    t.next_header_off = ipv6_header_size;
    uint8_t* ip = t.bytes;
    ip[0] = 0x60;
    ip[6] = ipproto::routing;
    std::copy(segments[0].bytes.begin(), segments[0].bytes.end(), ip + 24);
    uint8_t* srh = ip + ipv6_header_size;
    srh[0] = ipproto::ipv6;  // the packet's next header, per packet
    srh[1] = static_cast<uint8_t>(2 * entries);
    srh[2] = srh_routing_type;
    srh[3] = static_cast<uint8_t>(n);
    srh[4] = static_cast<uint8_t>(entries - 1);
    // Segment List[0] (the packet's destination) is written per packet.
    for (size_t i = 1; i < entries; ++i) {
        const rib::ip6_addr& sid = segments[n - i];
        std::copy(sid.bytes.begin(), sid.bytes.end(), srh + srh_fixed_size + sid_size * i);
    }
    return out;
}

}  // namespace

encap_build build_encap_template(rib::encap_mode mode, std::span<const rib::ip6_addr> segments, const rib::ip6_addr& source,
                                 uint8_t inner_proto) {
    encap_build out;
    if (is_insert(mode))
        return build_insert_template(mode, segments);
    if (segments.empty()) {
        out.refusal = encap_refusal::no_segments;
        return out;
    }
    if (segments.size() > max_srh_segments) {
        out.refusal = encap_refusal::too_many_segments;
        return out;
    }
    if (source.is_zero()) {  // the resolver says none with a reason; :: must never get here
        out.refusal = encap_refusal::no_source;
        return out;
    }
    const size_t n = segments.size();
    const uint8_t proto = is_l2(mode) ? ipproto::ethernet : inner_proto;
    // H.Encaps.Red leaves the first SID out of the SRH (it is in the DA); with one SID there is
    // nothing left and no SRH is pushed (RFC 8986 §5.2; the kernel's seg6_do_srh_encap_red).
    const size_t entries = is_reduced(mode) ? n - 1 : n;

    auto& t = out.tmpl;
    t.mode = static_cast<uint8_t>(mode);
    t.l2 = is_l2(mode) ? 1 : 0;
    t.n_segments = static_cast<uint8_t>(n);
    t.srh_entries = static_cast<uint8_t>(entries);
    t.inner_proto = proto;
    const size_t srh_len = entries ? srh_fixed_size + 16 * entries : 0;
    t.len = static_cast<uint16_t>(ipv6_header_size + srh_len);
    uint8_t* ip = t.bytes;
    ip[0] = 0x60;  // version 6, traffic class 0, flow label 0 (written per packet)
    // bytes 4-5, payload length: written per packet
    ip[6] = entries ? ipproto::routing : proto;
    ip[7] = encap_default_hop_limit;
    std::copy(source.bytes.begin(), source.bytes.end(), ip + 8);
    std::copy(segments[0].bytes.begin(), segments[0].bytes.end(), ip + 24);
    t.next_header_off = 6;
    if (!entries)
        return out;

    uint8_t* srh = ip + ipv6_header_size;
    srh[0] = proto;
    srh[1] = static_cast<uint8_t>(2 * entries);  // hdr ext len: 8-octet units after the first 8
    srh[2] = srh_routing_type;
    srh[3] = static_cast<uint8_t>(n - 1);        // segments left: n - 1 in both modes
    srh[4] = static_cast<uint8_t>(entries - 1);  // last entry
    // flags (5) and tag (6-7) stay 0
    // Segment List[0] is the last SID; list[entries - 1] is s[0] (H.Encaps) or s[1] (.Red).
    for (size_t i = 0; i < entries; ++i) {
        const rib::ip6_addr& sid = segments[n - 1 - i];
        std::copy(sid.bytes.begin(), sid.bytes.end(), srh + srh_fixed_size + 16 * i);
    }
    t.next_header_off = ipv6_header_size;
    return out;
}

}  // namespace fib
