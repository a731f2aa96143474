// SONiC PIC contexts (RTM_NEWPICCONTEXT 2000 / RTM_DELPICCONTEXT 2001): the body is exactly an
// RTM_NEWNEXTHOP/RTM_DELNEXTHOP one, so the nexthop decoder reads it (same checks, same
// reasons) and its result moves into the PIC contexts' own id space.
#include <utility>
#include <variant>

#include "fpm/decoder.hh"
#include "fpm/rtnl.hh"
#include "fpm/sonic_parsers.hh"
#include "fpm/sonic_wire.hh"

namespace fpm::sonic {

void decode_pic_context(const nl::message& m, decode_ctx& ctx, std::vector<update>& out) {
    nl::message as_nh = m;
    as_nh.hdr.type = m.hdr.type == rtm_newpiccontext ? rtnl::rtm_newnexthop : rtnl::rtm_delnexthop;
    const size_t first = out.size();
    decode_nexthop(as_nh, ctx, out);
    for (size_t i = first; i < out.size(); ++i) {
        auto& u = out[i];
        u.from = dialect::sonic;
        if (auto* up = std::get_if<nexthop_upsert>(&u.body))
            u.body = pic_context_upsert{std::move(up->nh)};
        else if (auto* del = std::get_if<nexthop_delete>(&u.body))
            u.body = pic_context_delete{del->id};
    }
}

}  // namespace fpm::sonic
