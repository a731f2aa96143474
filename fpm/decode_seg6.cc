// LWTUNNEL_ENCAP_SEG6 (5): the headend side, RFC 8986 H.Encaps/H.Insert and their variants.
#include <optional>

#include <fmt/format.h>

#include "fpm/decoder.hh"
#include "fpm/srh.hh"

namespace fpm {
namespace {

// linux/seg6_iptunnel.h
constexpr uint16_t seg6_iptunnel_srh = 1;  // struct seg6_iptunnel_encap {int mode; ipv6_sr_hdr srh[];}
constexpr uint16_t seg6_iptunnel_src = 2;  // 16-byte encap source (FRR master, staticd encap-source)
constexpr size_t seg6_mode_size = 4;
constexpr int32_t seg6_mode_max = static_cast<int32_t>(rib::encap_mode::l2encap_red);

static_assert(sizeof(rib::ip6_addr) == 16, "ip6_addr is read straight off the wire");

}  // namespace

bool decode_seg6(nl::bytes nest, decode_ctx& ctx, rib::seg6_encap& out) {
    std::optional<nl::bytes> srh_attr, src_attr;
    nl::attr_walker walk(nest);
    while (auto a = walk.next()) {
        std::optional<nl::bytes>* slot = nullptr;
        switch (a->type) {
        case seg6_iptunnel_srh: slot = &srh_attr; break;
        case seg6_iptunnel_src: slot = &src_attr; break;
        default:
            ctx.report(reason::ignored_attr, fmt::format("seg6 attribute {}", a->type));
            continue;
        }
        if (*slot) {
            ctx.report(reason::attr_duplicate, fmt::format("seg6 attribute {}", a->type));
            return false;
        }
        *slot = a->payload;
    }
    if (walk.truncated()) {
        ctx.report(reason::attr_truncated, "seg6 encap nest");
        return false;
    }
    if (!srh_attr) {
        ctx.report(reason::seg6_no_srh);
        return false;
    }

    rib::seg6_encap e;
    if (src_attr) {
        const auto src = nl::get_exact<rib::ip6_addr>(*src_attr);
        if (!src) {
            ctx.report(reason::attr_bad_len, fmt::format("SEG6_IPTUNNEL_SRC of {} bytes", src_attr->size()));
            return false;
        }
        // "::" is how the kernel spells "no source, pick one by route lookup".
        if (!src->is_zero())
            e.source = *src;
    }

    const nl::bytes tun = *srh_attr;
    const auto mode = nl::get<int32_t>(tun);  // host order, like every netlink integer
    if (!mode) {
        ctx.report(reason::seg6_bad_srh, fmt::format("SEG6_IPTUNNEL_SRH of {} bytes", tun.size()));
        return false;
    }
    if (*mode < 0 || *mode > seg6_mode_max) {
        ctx.report(reason::seg6_bad_mode, fmt::format("mode {}", *mode));
        return false;
    }
    e.mode = static_cast<rib::encap_mode>(*mode);
    // ENCAP_RED keeps the full list: leaving out the first SID is the dataplane's job.
    if (!decode_srh(tun.subspan(seg6_mode_size), ctx, e.segments))
        return false;
    out = std::move(e);
    return true;
}

}  // namespace fpm
