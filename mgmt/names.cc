#include "mgmt/names.hh"

#include <fmt/format.h>

#include "rib/behaviors.hh"

namespace mgmt {
namespace {

struct proto_entry {
    uint8_t number;
    std::string_view name;  // as zebra's `show ip route json` spells the route type
    std::string_view code;  // vtysh's letter
};

// rtm_protocol values zebra2proto() produces. Kernel and connected routes share 2, so both
// show as K: the wire does not tell them apart.
constexpr proto_entry protocols[] = {
    {rib::proto::kernel, "kernel", "K"},  {rib::proto::zebra, "zebra", "T"},
    {rib::proto::config, "config", "?"},  // srv6d's own [sids] lines (not zebra's): no vtysh letter
    {42, "babel", "A"},                   {rib::proto::bgp, "bgp", "B"},
    {rib::proto::isis, "isis", "I"},      {rib::proto::ospf, "ospf", "O"},
    {189, "rip", "R"},                    {190, "ripng", "R"},
    {191, "nhrp", "N"},                   {192, "eigrp", "E"},
    {193, "ldp", "?"},                    {rib::proto::sharp, "sharp", "D"},
    {195, "pbr", "F"},                    {rib::proto::zstatic, "static", "S"},
    {197, "openfabric", "f"},             {198, "srte", "?"},
};

const proto_entry* find_protocol(uint8_t p) {
    for (const auto& e : protocols)
        if (e.number == p)
            return &e;
    return nullptr;
}

struct msg_type_entry {
    uint16_t type;
    std::string_view name;
};

constexpr uint16_t protobuf_bit = 0x8000;  // fpm::ingest_stats marks protobuf types this way

constexpr msg_type_entry msg_types[] = {
    {1, "NLMSG_NOOP"},
    {2, "NLMSG_ERROR"},
    {3, "NLMSG_DONE"},
    {24, "RTM_NEWROUTE"},
    {25, "RTM_DELROUTE"},
    {28, "RTM_NEWNEIGH"},
    {29, "RTM_DELNEIGH"},
    {104, "RTM_NEWNEXTHOP"},
    {105, "RTM_DELNEXTHOP"},
    // SONiC dplane_fpm_sonic custom types
    {1000, "RTM_NEWSRV6LOCALSID"},
    {1001, "RTM_DELSRV6LOCALSID"},
    {2000, "RTM_NEWPICCONTEXT"},
    {2001, "RTM_DELPICCONTEXT"},
    {3000, "RTM_NEWSRV6VPNROUTE"},
    {3001, "RTM_DELSRV6VPNROUTE"},
    {4000, "RTM_NEWSIDLIST"},
    {4001, "RTM_DELSIDLIST"},
    // legacy protobuf fpm.Message.Type
    {protobuf_bit | 0, "UNKNOWN_MSG"},
    {protobuf_bit | 1, "ADD_ROUTE"},
    {protobuf_bit | 2, "DELETE_ROUTE"},
    {protobuf_bit | 3, "ADD_SRV6_LOCALSID"},
    {protobuf_bit | 4, "DELETE_SRV6_LOCALSID"},
};

}  // namespace

std::string protocol_name(uint8_t protocol) {
    if (const auto* e = find_protocol(protocol))
        return std::string(e->name);
    return fmt::format("proto {}", protocol);
}

std::string_view protocol_code(uint8_t protocol) {
    const auto* e = find_protocol(protocol);
    return e ? e->code : "?";
}

std::string msg_type_name(uint16_t type) {
    for (const auto& e : msg_types)
        if (e.type == type)
            return std::string(e.name);
    if (type & protobuf_bit)
        return fmt::format("protobuf type {}", type & ~protobuf_bit);
    return fmt::format("type {}", type);
}

std::string_view resolve_state_name(rib::resolve_state s) {
    switch (s) {
    case rib::resolve_state::ok: return "ok";
    case rib::resolve_state::partial: return "partial";
    case rib::resolve_state::unresolved: return "unresolved";
    case rib::resolve_state::no_paths: return "no_paths";
    }
    return "unknown";
}

std::string_view encap_mode_name(rib::encap_mode m) {
    switch (m) {
    case rib::encap_mode::inline_srh: return "H.Insert";
    case rib::encap_mode::encap: return "H.Encaps";
    case rib::encap_mode::l2encap: return "H.Encaps.L2";
    case rib::encap_mode::encap_red: return "H.Encaps.Red";
    case rib::encap_mode::l2encap_red: return "H.Encaps.L2.Red";
    case rib::encap_mode::inline_red: return "H.Insert.Red";
    }
    return "unknown";
}

std::string printable(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c < 0x20 || c > 0x7e)
            c = '?';
    return out;
}

}  // namespace mgmt
