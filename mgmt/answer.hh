// One request in, one response out: the handler the daemon gives mgmt::server.
#pragma once

#include "fib/rib.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/session.hh"
#include "mgmt/proto.hh"

namespace mgmt {

// Dispatches on the request's command; a request without a known command gets an error
// response (a newer srv6ctl talking to an older srv6d sends commands this one lacks).
pb::Response answer(const pb::Request& req, const fib::rib& rib, const fpm::ingest_stats& stats,
                    const fpm::session_info& session);

}  // namespace mgmt
