#include "fib/control/encap_template.hh"

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

namespace {

std::optional<encap_template> fail(std::string* why, std::string text) {
    if (why)
        *why = std::move(text);
    return std::nullopt;
}

// An H.Insert template from the SRH alone (what `ip route ... encap seg6 mode inline` holds):
// `in` is the SRH, Segment List[0] the slot for the packet's destination.
std::optional<encap_template> parse_insert_template(std::span<const uint8_t> in, rib::encap_mode mode, std::string* why) {
    if (is_reduced(mode))  // the kernel has no such mode, and the first SID is not in the SRH
        return fail(why, "H.Insert.Red cannot be read from an SRH (its first SID is only in the destination)");
    const size_t len = in.size();
    if (in.data() == nullptr || len < srh_fixed_size + 2 * sid_size || (len - srh_fixed_size) % sid_size != 0)
        return fail(why, "inline SRH length is not 8 + 16·k with k >= 2");
    if (ipv6_header_size + len > max_encap_len)
        return fail(why, "inline SRH longer than " + std::to_string(max_encap_len - ipv6_header_size) + " bytes");
    const uint8_t* srh = in.data();
    const size_t entries = (len - srh_fixed_size) / sid_size;
    if ((static_cast<size_t>(srh[1]) + 1) * 8 != len)
        return fail(why, "SRH hdr_ext_len does not match its length");
    if (srh[2] != srh_routing_type)
        return fail(why, "routing header type is not 4 (SRH)");
    if (static_cast<size_t>(srh[4]) + 1 != entries)
        return fail(why, "SRH last_entry does not match the segment list (TLVs are not supported)");
    if (srh[3] != entries - 1)
        return fail(why, "inline SRH needs segments_left == last_entry");
    std::vector<rib::ip6_addr> sids;  // visiting order: Segment List[last] first
    for (size_t i = entries - 1; i >= 1; --i) {
        rib::ip6_addr a;
        std::memcpy(a.bytes.data(), srh + srh_fixed_size + sid_size * i, sid_size);
        sids.push_back(a);
    }
    auto b = build_insert_template(mode, sids);
    if (!b.ok())
        return fail(why, std::string(name(b.refusal)));
    return b.tmpl;
}

}  // namespace

std::optional<encap_template> parse_encap_template(std::span<const uint8_t> in, rib::encap_mode mode, std::string* why) {
    using rib::encap_mode;
    if (is_insert(mode))
        return parse_insert_template(in, mode, why);
    const bool red = is_reduced(mode);
    const uint8_t* bytes = in.data();
    const size_t len = in.size();
    if (bytes == nullptr || len < ipv6_header_size)
        return fail(why, "template shorter than an IPv6 header");
    if (len > max_encap_len)
        return fail(why, "template longer than " + std::to_string(max_encap_len) + " bytes");
    if (bytes[0] >> 4 != 6)
        return fail(why, "outer header is not IPv6");

    encap_template t;
    t.mode = static_cast<uint8_t>(mode);
    t.l2 = is_l2(mode) ? 1 : 0;
    t.len = static_cast<uint16_t>(len);
    std::memcpy(t.bytes, bytes, len);
    if (len == ipv6_header_size) {
        t.next_header_off = 6;
        t.n_segments = 1;
        t.inner_proto = bytes[6];
        return t;
    }

    const uint8_t* srh = bytes + ipv6_header_size;
    const size_t srh_len = len - ipv6_header_size;
    if (bytes[6] != ipproto::routing)
        return fail(why, "bytes after the IPv6 header but next header is not 43 (routing)");
    if (srh_len < srh_fixed_size + sid_size || (srh_len - srh_fixed_size) % sid_size != 0)
        return fail(why, "SRH length is not 8 + 16·k with k >= 1");
    if ((static_cast<size_t>(srh[1]) + 1) * 8 != srh_len)
        return fail(why, "SRH hdr_ext_len does not match the template length");
    if (srh[2] != srh_routing_type)
        return fail(why, "routing header type is not 4 (SRH)");
    const size_t n = (srh_len - srh_fixed_size) / sid_size;
    const uint8_t segments_left = srh[3];
    const uint8_t last_entry = srh[4];
    if (static_cast<size_t>(last_entry) + 1 != n)
        return fail(why, "SRH last_entry does not match the segment list (TLVs are not supported)");
    if (red) {
        // RFC 8986 §5.2: the first SID is only in the DA; the SRH lists the others.
        if (segments_left != last_entry + 1)
            return fail(why, "reduced SRH needs segments_left == last_entry + 1");
    } else {
        if (segments_left != last_entry)
            return fail(why, "SRH needs segments_left == last_entry");
        if (std::memcmp(bytes + 24, srh + srh_fixed_size + sid_size * segments_left, sid_size) != 0)
            return fail(why, "destination is not the SRH's active segment");
    }
    t.next_header_off = static_cast<uint8_t>(ipv6_header_size);
    t.srh_entries = static_cast<uint8_t>(n);
    t.n_segments = static_cast<uint8_t>(red ? n + 1 : n);
    t.inner_proto = srh[0];
    return t;
}

}  // namespace fib
