#include "fpm/sid_check.hh"

#include "rib/sid_params.hh"

namespace fpm {

bool check_sid_params(const rib::behavior_info& row, const rib::seg6local& sid, uint16_t wire_only, decode_ctx& ctx,
                      reason bad_structure) {
    rib::param_check c = rib::check_params(row, sid, wire_only);
    if (c.ok())
        return true;
    // flavors and structure are the parameters with a value check (rib/sid_params.cc).
    const reason why = c.fault == rib::param_fault::missing    ? reason::seg6local_missing_attr
                       : c.params == rib::sid_param::structure ? bad_structure
                                                               : reason::seg6local_bad_flavors;
    ctx.report(why, std::move(c.reason));
    return false;
}

}  // namespace fpm
