// One RTA_ENCAP_TYPE/RTA_ENCAP (or NHA_*) pair onto its nexthop, plus the small encaps that
// ride along with SRv6: MPLS labels (bgpd's transposed VPN function) and SONiC's type 101.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fpm/decoder.hh"

namespace fpm {
namespace {

// linux/lwtunnel.h, plus FRR's private VXLAN (100) and SONiC's FPM_ROUTE_ENCAP_SRV6 (101).
constexpr uint16_t encap_mpls = 1;
constexpr uint16_t encap_seg6 = 5;
constexpr uint16_t encap_seg6_local = 7;
constexpr uint16_t encap_sonic_srv6 = 101;

// linux/mpls_iptunnel.h
constexpr uint16_t mpls_iptunnel_dst = 1;
constexpr size_t mpls_entry_size = 4;
constexpr unsigned mpls_label_shift = 12;  // entry = label:20 | tc:3 | bos:1 | ttl:8

// dplane_fpm_sonic.c, RTA_ENCAP nest of type 101
constexpr uint16_t sonic_vpn_sid = 1;
constexpr uint16_t sonic_encap_src_addr = 2;
constexpr uint16_t sonic_pic_id = 3;
constexpr uint16_t sonic_nh_id = 4;
constexpr uint16_t sonic_sidlist_name = 5;

// SONiC's SRv6 VPN nest. `out` stays empty, without a report, for an NHG-mode nest that only
// names PIC_ID/NH_ID: those are route-level and belong to the 3000-message decoder.
bool decode_sonic_vpn(nl::bytes nest, decode_ctx& ctx, std::optional<rib::seg6_encap>& out) {
    std::optional<nl::bytes> sid_attr, src_attr, name_attr;
    nl::attr_walker walk(nest);
    while (auto a = walk.next()) {
        std::optional<nl::bytes>* slot = nullptr;
        switch (a->type) {
        case sonic_vpn_sid: slot = &sid_attr; break;
        case sonic_encap_src_addr: slot = &src_attr; break;
        case sonic_sidlist_name: slot = &name_attr; break;
        case sonic_pic_id:
        case sonic_nh_id: continue;
        default:
            ctx.report(reason::ignored_attr, fmt::format("SONiC SRv6 VPN attribute {}", a->type));
            continue;
        }
        if (*slot) {
            ctx.report(reason::attr_duplicate, fmt::format("SONiC SRv6 VPN attribute {}", a->type));
            return false;
        }
        *slot = a->payload;
    }
    if (walk.truncated()) {
        ctx.report(reason::attr_truncated, "SONiC SRv6 VPN encap nest");
        return false;
    }
    rib::seg6_encap e;  // SONiC does not carry Encaps vs Encaps.Red: H.Encaps
    if (sid_attr) {
        const auto sid = nl::get_exact<rib::ip6_addr>(*sid_attr);
        if (!sid) {
            ctx.report(reason::sonic_bad_vpn_encap, fmt::format("VPN_SID of {} bytes", sid_attr->size()));
            return false;
        }
        e.segments.push_back(*sid);  // SONiC sends only the first SID
    }
    if (src_attr) {
        const auto src = nl::get_exact<rib::ip6_addr>(*src_attr);
        if (!src) {
            ctx.report(reason::sonic_bad_vpn_encap, fmt::format("ENCAP_SRC_ADDR of {} bytes", src_attr->size()));
            return false;
        }
        if (!src->is_zero())  // "::": no source known, as for the kernel's tunsrc
            e.source = *src;
    }
    if (name_attr) {
        // A C string; stop at the first NUL whatever the attribute length says.
        const auto nul = std::find(name_attr->begin(), name_attr->end(), uint8_t{0});
        e.sidlist_name.assign(name_attr->begin(), nul);
    }
    if (e.segments.empty() && e.sidlist_name.empty()) {
        if (src_attr) {
            ctx.report(reason::sonic_bad_vpn_encap, "ENCAP_SRC_ADDR without VPN_SID or SIDLIST_NAME");
            return false;
        }
        return true;
    }
    out = std::move(e);
    return true;
}

}  // namespace

bool decode_mpls(nl::bytes nest, decode_ctx& ctx, std::vector<uint32_t>& labels) {
    std::optional<nl::bytes> dst;
    nl::attr_walker walk(nest);
    while (auto a = walk.next()) {
        if (a->type != mpls_iptunnel_dst) {  // MPLS_IPTUNNEL_TTL: srv6d builds its own label stack
            ctx.report(reason::ignored_attr, fmt::format("MPLS encap attribute {}", a->type));
            continue;
        }
        if (dst) {
            ctx.report(reason::attr_duplicate, "MPLS_IPTUNNEL_DST");
            return false;
        }
        dst = a->payload;
    }
    if (walk.truncated()) {
        ctx.report(reason::attr_truncated, "MPLS encap nest");
        return false;
    }
    if (!dst || dst->empty()) {
        ctx.report(reason::mpls_no_labels);
        return false;
    }
    if (dst->size() % mpls_entry_size) {
        ctx.report(reason::attr_bad_len, fmt::format("MPLS_IPTUNNEL_DST of {} bytes", dst->size()));
        return false;
    }
    std::vector<uint32_t> out;
    out.reserve(dst->size() / mpls_entry_size);
    for (size_t i = 0; i < dst->size(); i += mpls_entry_size) {
        const auto e = dst->subspan(i, mpls_entry_size);  // network order, unlike netlink integers
        const uint32_t entry = uint32_t{e[0]} << 24 | uint32_t{e[1]} << 16 | uint32_t{e[2]} << 8 | e[3];
        out.push_back(entry >> mpls_label_shift);
    }
    labels = std::move(out);
    return true;
}

void apply_encap(uint16_t encap_type, nl::bytes nest, decode_ctx& ctx, rib::nexthop& nh) {
    switch (encap_type) {
    case encap_seg6:
    case encap_sonic_srv6: {
        if (nh.seg6) {
            ctx.report(reason::attr_duplicate, fmt::format("second seg6 encap (type {}) on one nexthop", encap_type));
            return;
        }
        if (encap_type == encap_seg6) {
            rib::seg6_encap e;
            if (decode_seg6(nest, ctx, e))
                nh.seg6 = std::move(e);
        } else {
            std::optional<rib::seg6_encap> e;
            if (decode_sonic_vpn(nest, ctx, e) && e)
                nh.seg6 = std::move(e);
        }
        return;
    }
    case encap_seg6_local: {
        if (nh.local) {
            ctx.report(reason::attr_duplicate, "second seg6local encap on one nexthop");
            return;
        }
        rib::seg6local s;
        if (decode_seg6local(nest, ctx, s))
            nh.local = std::move(s);
        return;
    }
    case encap_mpls: {
        if (!nh.mpls_labels.empty()) {
            ctx.report(reason::attr_duplicate, "second MPLS encap on one nexthop");
            return;
        }
        std::vector<uint32_t> labels;
        if (decode_mpls(nest, ctx, labels))
            nh.mpls_labels = std::move(labels);
        return;
    }
    default:  // 100 FRR VXLAN, 2/4 IP/IP6 (EVPN), BPF, ILA...
        ctx.report(reason::ignored_encap_type, fmt::format("encap type {}", encap_type));
        return;
    }
}

}  // namespace fpm
