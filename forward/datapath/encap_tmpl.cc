#include "forward/datapath/encap_tmpl.hh"

#include <cstring>

namespace fwd {
namespace {

std::optional<encap_tmpl_view> fail(std::string* why, std::string text) {
    if (why)
        *why = std::move(text);
    return std::nullopt;
}

}  // namespace

std::optional<encap_tmpl_view> make_tmpl_view(const uint8_t* bytes, size_t len, rib::encap_mode mode,
                                              std::string* why) {
    using rib::encap_mode;
    if (mode == encap_mode::inline_srh)
        return fail(why, "H.Insert (inline SRH) is not a headend encapsulation");
    const bool red = mode == encap_mode::encap_red || mode == encap_mode::l2encap_red;
    if (bytes == nullptr || len < ip6_hdr_len)
        return fail(why, "template shorter than an IPv6 header");
    if (len > max_tmpl_len)
        return fail(why, "template longer than " + std::to_string(max_tmpl_len) + " bytes");
    if (bytes[0] >> 4 != 6)
        return fail(why, "outer header is not IPv6");

    encap_tmpl_view v;
    v.bytes = bytes;
    v.len = static_cast<uint16_t>(len);
    v.l2 = mode == encap_mode::l2encap || mode == encap_mode::l2encap_red;
    if (len == ip6_hdr_len) {
        v.nh_off = 6;
        return v;
    }

    const uint8_t* srh = bytes + ip6_hdr_len;
    const size_t srh_len = len - ip6_hdr_len;
    if (bytes[6] != ipproto_routing)
        return fail(why, "bytes after the IPv6 header but next header is not 43 (routing)");
    if (srh_len < srh_fixed_len + sid_len || (srh_len - srh_fixed_len) % sid_len != 0)
        return fail(why, "SRH length is not 8 + 16·k with k >= 1");
    if ((static_cast<size_t>(srh[1]) + 1) * 8 != srh_len)
        return fail(why, "SRH hdr_ext_len does not match the template length");
    if (srh[2] != srh_routing_type)
        return fail(why, "routing header type is not 4 (SRH)");
    const size_t n = (srh_len - srh_fixed_len) / sid_len;
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
        if (std::memcmp(bytes + 24, srh + srh_fixed_len + sid_len * segments_left, sid_len) != 0)
            return fail(why, "destination is not the SRH's active segment");
    }
    v.nh_off = ip6_hdr_len;
    return v;
}

}  // namespace fwd
