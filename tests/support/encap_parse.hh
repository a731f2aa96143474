// A headend template read from foreign bytes (a header the kernel or a test built), checked
// against RFC 8754/8986 and laid out as fib::encap_template holds it: so a test can run the
// worker on exactly the header Linux would push and compare with what srv6d's compiler built.
// Written from the wire format, not from the compiler (fib::build_encap_template).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include "fib/datapath/encap_template.hh"
#include "rib/model.hh"

namespace test_support {

namespace encap_detail {

inline std::optional<fib::encap_template> fail(std::string* why, std::string text) {
    if (why)
        *why = std::move(text);
    return std::nullopt;
}

inline bool l2(rib::encap_mode m) { return m == rib::encap_mode::l2encap || m == rib::encap_mode::l2encap_red; }
inline bool reduced(rib::encap_mode m) {
    return m == rib::encap_mode::encap_red || m == rib::encap_mode::l2encap_red || m == rib::encap_mode::inline_red;
}

// H.Insert from the SRH alone (what `ip route ... encap seg6 mode inline` holds): Segment
// List[0] is the slot for the packet's destination, the active segment the new destination.
inline std::optional<fib::encap_template> parse_insert(std::span<const uint8_t> in, rib::encap_mode mode, std::string* why) {
    using namespace fib;
    if (reduced(mode))  // the kernel has no such mode, and the first SID is not in the SRH
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
    encap_template t;
    t.mode = static_cast<uint8_t>(mode);
    t.insert = 1;
    t.n_segments = static_cast<uint8_t>(entries - 1);
    t.srh_entries = static_cast<uint8_t>(entries);
    t.inner_proto = ipproto::ipv6;
    t.len = static_cast<uint16_t>(ipv6_header_size + len);
    t.next_header_off = static_cast<uint8_t>(ipv6_header_size);
    t.bytes[0] = 0x60;
    t.bytes[6] = ipproto::routing;
    std::memcpy(t.bytes + 24, srh + srh_fixed_size + sid_size * (entries - 1), sid_size);
    uint8_t* out = t.bytes + ipv6_header_size;
    std::memcpy(out, srh, len);
    out[0] = ipproto::ipv6;                                 // the packet's next header, per packet
    std::memset(out + srh_fixed_size, 0, sid_size);         // Segment List[0]: the packet's DA, per packet
    return t;
}

}  // namespace encap_detail

// `in` is the outer IPv6 header (+ SRH) for the encap modes, the SRH alone for H.Insert.
inline std::optional<fib::encap_template> parse_encap_template(std::span<const uint8_t> in, rib::encap_mode mode,
                                                               std::string* why = nullptr) {
    using namespace fib;
    using encap_detail::fail;
    if (mode == rib::encap_mode::inline_srh || mode == rib::encap_mode::inline_red)
        return encap_detail::parse_insert(in, mode, why);
    const bool red = encap_detail::reduced(mode);
    const uint8_t* hdr = in.data();
    const size_t len = in.size();
    if (hdr == nullptr || len < ipv6_header_size)
        return fail(why, "template shorter than an IPv6 header");
    if (len > max_encap_len)
        return fail(why, "template longer than " + std::to_string(max_encap_len) + " bytes");
    if (hdr[0] >> 4 != 6)
        return fail(why, "outer header is not IPv6");

    encap_template t;
    t.mode = static_cast<uint8_t>(mode);
    t.l2 = encap_detail::l2(mode) ? 1 : 0;
    t.len = static_cast<uint16_t>(len);
    std::memcpy(t.bytes, hdr, len);
    if (len == ipv6_header_size) {
        t.next_header_off = 6;
        t.n_segments = 1;
        t.inner_proto = hdr[6];
        return t;
    }

    const uint8_t* srh = hdr + ipv6_header_size;
    const size_t srh_len = len - ipv6_header_size;
    if (hdr[6] != ipproto::routing)
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
        if (std::memcmp(hdr + 24, srh + srh_fixed_size + sid_size * segments_left, sid_size) != 0)
            return fail(why, "destination is not the SRH's active segment");
    }
    t.next_header_off = static_cast<uint8_t>(ipv6_header_size);
    t.srh_entries = static_cast<uint8_t>(n);
    t.n_segments = static_cast<uint8_t>(red ? n + 1 : n);
    t.inner_proto = srh[0];
    return t;
}

}  // namespace test_support
