// Internals of decode_sonic(): one parser per SONiC message family, plus the few readers they
// share. Each parser reports what it rejects and emits at most one update per message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rib/addr.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/nl_attr.hh"
#include "fpm/rtnl.hh"
#include "fpm/update.hh"

namespace fpm::sonic {

// The rtmsg at the start of the body, or nullopt after reporting nlmsg_body_short.
std::optional<rtnl::rtmsg> read_rtmsg(nl::bytes body, decode_ctx& ctx);

// A C string attribute that may lack its NUL: stops at the first NUL or at the payload's end.
std::string bounded_string(nl::bytes payload);

std::optional<rib::ip4_addr> get_ip4(nl::bytes payload);  // exactly 4 bytes
std::optional<rib::ip6_addr> get_ip6(nl::bytes payload);  // exactly 16 bytes

void decode_localsid(const nl::message& m, decode_ctx& ctx, std::vector<update>& out);     // 1000/1001
void decode_vpn_route(const nl::message& m, decode_ctx& ctx, std::vector<update>& out);    // 3000/3001
void decode_pic_context(const nl::message& m, decode_ctx& ctx, std::vector<update>& out);  // 2000/2001
void decode_sidlist(const nl::message& m, decode_ctx& ctx, std::vector<update>& out);      // 4000/4001

}  // namespace fpm::sonic
