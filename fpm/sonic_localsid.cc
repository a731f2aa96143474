// SONiC local SIDs (RTM_NEWSRV6LOCALSID 1000 / RTM_DELSRV6LOCALSID 1001) into SID routes of
// the default VRF's table, the shape dplane_fpm_nl gives them as seg6local routes.
#include <fmt/format.h>

#include "rib/behaviors.hh"
#include "fpm/sid_check.hh"
#include "fpm/sonic_parsers.hh"
#include "fpm/sonic_wire.hh"

namespace fpm::sonic {
namespace {

struct localsid_msg {
    std::optional<rib::ip6_addr> sid;
    std::optional<rib::sid_structure> structure;
    std::optional<uint32_t> action;
    std::string vrf_name;
    std::string ifname;
    std::optional<rib::ip4_addr> nh4;
    std::optional<rib::ip6_addr> nh6;
    std::string sidlist;  // B6_ENCAPS(_RED): the name of a SID list (4000 message)
};

bool parse_format(nl::bytes nest, decode_ctx& ctx, rib::sid_structure& out) {
    nl::attr_walker w(nest);
    while (auto a = w.next()) {
        uint8_t* field = nullptr;
        switch (a->type) {
        case format_attr::block_len: field = &out.block_len; break;
        case format_attr::node_len: field = &out.node_len; break;
        case format_attr::func_len: field = &out.func_len; break;
        case format_attr::arg_len: field = &out.arg_len; break;
        default:
            ctx.report(reason::ignored_attr, fmt::format("SONiC FORMAT attribute {}", a->type));
            continue;
        }
        const auto v = nl::get_exact<uint8_t>(a->payload);
        if (!v) {
            ctx.report(reason::sonic_bad_format,
                       fmt::format("attribute {} has {} bytes, not 1", a->type, a->payload.size()));
            return false;
        }
        *field = *v;
    }
    if (w.truncated()) {
        ctx.report(reason::sonic_bad_format, "truncated nest");
        return false;
    }
    return true;  // the lengths' sum is the structure parameter's check (check_sid_params)
}

bool is_param(uint16_t type) {
    switch (type) {
    case localsid_attr::format:
    case localsid_attr::action:
    case localsid_attr::vrfname:
    case localsid_attr::nh6:
    case localsid_attr::nh4:
    case localsid_attr::ifname:
    case localsid_attr::sidlist:
        return true;
    default:
        return false;
    }
}

// One behavior parameter (is_param() is true); false after reporting a malformed one.
bool parse_param(const nl::attr& a, decode_ctx& ctx, localsid_msg& out) {
    switch (a.type) {
    case localsid_attr::format: {
        rib::sid_structure s;
        if (!parse_format(a.payload, ctx, s))
            return false;
        out.structure = s;
        return true;
    }
    case localsid_attr::action:
        out.action = nl::get_exact<uint32_t>(a.payload);
        if (!out.action)
            ctx.report(reason::attr_bad_len, fmt::format("SONiC ACTION of {} bytes", a.payload.size()));
        return out.action.has_value();
    case localsid_attr::vrfname:
        out.vrf_name = bounded_string(a.payload);
        return true;
    case localsid_attr::ifname:
        out.ifname = bounded_string(a.payload);
        return true;
    case localsid_attr::sidlist:
        out.sidlist = bounded_string(a.payload);
        return true;
    case localsid_attr::nh6:
        out.nh6 = get_ip6(a.payload);
        if (!out.nh6)
            ctx.report(reason::attr_bad_len, fmt::format("SONiC NH6 of {} bytes", a.payload.size()));
        return out.nh6.has_value();
    case localsid_attr::nh4:
        out.nh4 = get_ip4(a.payload);
        if (!out.nh4)
            ctx.report(reason::attr_bad_len, fmt::format("SONiC NH4 of {} bytes", a.payload.size()));
        return out.nh4.has_value();
    default:
        return true;
    }
}

// Fills `out`; false (after reporting) when the message is unusable. A delete needs only the
// SID, so its other attributes are not checked.
bool parse_attrs(nl::bytes attrs, bool is_new, decode_ctx& ctx, localsid_msg& out) {
    nl::attr_walker w(attrs);
    while (auto a = w.next()) {
        if (a->type == localsid_attr::sid_value) {
            const auto v = get_ip6(a->payload);
            if (!v) {
                ctx.report(reason::sonic_bad_sid, fmt::format("SID_VALUE of {} bytes", a->payload.size()));
                return false;
            }
            // Newer encoders repeat the SID as RTA_DST, which has the same id: equal is fine.
            if (out.sid && *out.sid != *v)
                ctx.report(reason::attr_duplicate, "two different SID values; the first one is kept");
            else
                out.sid = v;
        } else if (!is_param(a->type)) {
            ctx.report(reason::ignored_attr, fmt::format("SONiC local SID attribute {}", a->type));
        } else if (is_new && !parse_param(*a, ctx, out)) {
            return false;
        }
    }
    if (w.truncated()) {
        ctx.report(reason::attr_truncated, "SONiC local SID attributes");
        return false;
    }
    if (!out.sid) {
        ctx.report(reason::sonic_bad_sid, "no SID_VALUE attribute");
        return false;
    }
    return true;
}

}  // namespace

void decode_localsid(const nl::message& m, decode_ctx& ctx, std::vector<update>& out) {
    const bool is_new = m.hdr.type == rtm_newsrv6localsid;
    const auto rtm = read_rtmsg(m.body, ctx);
    if (!rtm)
        return;
    if (rtm->family != rtnl::af_inet6) {
        ctx.report(reason::route_bad_family, fmt::format("SONiC local SID with family {}", rtm->family));
        return;
    }
    if (rtm->dst_len > 128) {
        ctx.report(reason::route_bad_prefix_len, fmt::format("SONiC local SID /{}", rtm->dst_len));
        return;
    }
    localsid_msg msg;
    if (!parse_attrs(m.body.subspan(rtnl::rtmsg_size), is_new, ctx, msg))
        return;

    // Local SIDs live in the default VRF's SID table whatever rtm_table (a VRF ifindex) says.
    rib::route_key key;
    key.table = rib::main_table;
    key.dst = rib::prefix::make(rib::ip_addr(*msg.sid), rtm->dst_len);
    if (!is_new) {
        out.push_back(update{dialect::sonic, route_delete{key}});
        return;
    }

    if (!msg.action) {
        ctx.report(reason::sonic_bad_action, "no ACTION attribute");
        return;
    }
    const auto ep = to_endpoint(*msg.action);
    if (!ep) {
        ctx.report(reason::sonic_bad_action, fmt::format("action code {}", *msg.action));
        return;
    }
    const rib::behavior_info& info = *rib::find_behavior(ep->behavior);
    rib::seg6local sl;
    sl.action = ep->behavior;
    sl.flavors = ep->flavors;
    sl.structure = msg.structure;
    // Kept as sent (SONiC names the VRF of every SID); the compiler reads what the row uses.
    sl.vrf_name = std::move(msg.vrf_name);
    sl.ifname = std::move(msg.ifname);
    sl.nh4 = msg.nh4;
    sl.nh6 = msg.nh6;
    // End.B6.Encaps(.Red): the policy is the named SID list, resolved when compiled (and again
    // when the list changes: the VPN routes steered into the binding SID stay as they are).
    if ((info.allowed() & rib::sid_param::srh) && !msg.sidlist.empty()) {
        rib::seg6_encap policy;
        policy.mode = *msg.action == static_cast<uint32_t>(action::b6_encaps_red) ? rib::encap_mode::encap_red
                      : *msg.action == static_cast<uint32_t>(action::b6_insert_red) ? rib::encap_mode::inline_red
                      : info.action == rib::behavior::end_b6                         ? rib::encap_mode::inline_srh
                                                                                     : rib::encap_mode::encap;
        policy.sidlist_name = std::move(msg.sidlist);
        sl.srh = std::move(policy);
    }
    if ((sl.flavors & rib::flavor::next_csid) && msg.structure && msg.structure->block_len) {
        const rib::csid_lengths c = rib::csid_from_structure(sl.action, *msg.structure);
        sl.lcblock_bits = c.block;
        sl.lcnode_fn_bits = c.node_fn;
    }
    // What the behavior cannot do without, from the contract (End.DX2: its port, by IFNAME). A
    // behavior without a datapath handler (End.B6) is not held up for its requirements: the
    // compiler refuses it, visibly in `srv6ctl show sids`. Parameters its row does not take are
    // kept as sent (SONiC names the VRF of every SID): the compiler reads what the row uses.
    const auto excused = info.handler == rib::dp_handler::none ? info.allowed() : uint16_t{0};
    if (!check_sid_params(info, sl, excused, ctx, reason::sonic_bad_format))
        return;

    rib::route r;
    r.key = key;
    r.type = rib::route_type::unicast;
    r.protocol = rtm->protocol;
    rib::nexthop nh;
    nh.local = std::move(sl);
    r.nexthops.push_back(std::move(nh));
    out.push_back(update{dialect::sonic, route_upsert{std::move(r)}});
}

}  // namespace fpm::sonic
