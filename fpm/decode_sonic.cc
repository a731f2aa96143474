// SONiC's own FPM messages (dplane_fpm_sonic): dispatch on nlmsg_type, since their attribute
// ids overlap RTA_* ids, plus the readers the per-message parsers share.
#include <algorithm>

#include <fmt/format.h>

#include "fpm/decoder.hh"
#include "fpm/sonic_parsers.hh"
#include "fpm/sonic_wire.hh"

namespace fpm {

namespace sonic {

std::optional<rtnl::rtmsg> read_rtmsg(nl::bytes body, decode_ctx& ctx) {
    auto r = rtnl::read_rtmsg(body);
    if (!r)
        ctx.report(reason::nlmsg_body_short, fmt::format("rtmsg of {} bytes", body.size()));
    return r;
}

std::string bounded_string(nl::bytes payload) {
    const auto end = std::find(payload.begin(), payload.end(), uint8_t{0});
    return std::string(payload.begin(), end);
}

std::optional<rib::ip4_addr> get_ip4(nl::bytes payload) {
    if (payload.size() != 4)
        return std::nullopt;
    rib::ip4_addr a;
    std::copy(payload.begin(), payload.end(), a.bytes.begin());
    return a;
}

std::optional<rib::ip6_addr> get_ip6(nl::bytes payload) {
    if (payload.size() != 16)
        return std::nullopt;
    rib::ip6_addr a;
    std::copy(payload.begin(), payload.end(), a.bytes.begin());
    return a;
}

}  // namespace sonic

void decode_sonic(const nl::message& m, decode_ctx& ctx, std::vector<update>& out) {
    switch (m.hdr.type) {
    case sonic::rtm_newsrv6localsid:
    case sonic::rtm_delsrv6localsid:
        sonic::decode_localsid(m, ctx, out);
        return;
    case sonic::rtm_newpiccontext:
    case sonic::rtm_delpiccontext:
        sonic::decode_pic_context(m, ctx, out);
        return;
    case sonic::rtm_newsrv6vpnroute:
    case sonic::rtm_delsrv6vpnroute:
        sonic::decode_vpn_route(m, ctx, out);
        return;
    case sonic::rtm_newsidlist:
    case sonic::rtm_delsidlist:
        sonic::decode_sidlist(m, ctx, out);
        return;
    default:
        ctx.report(reason::ignored_msg_type, fmt::format("nlmsg_type {} is not a SONiC type", m.hdr.type));
    }
}

}  // namespace fpm
