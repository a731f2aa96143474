// The common check of a decoded local SID, for the three FPM dialects: rib::check_params (the
// behavior row's requirements and each parameter's value check) reported under fpm's reasons.
#pragma once

#include <cstdint>

#include "rib/behaviors.hh"
#include "rib/model.hh"
#include "fpm/decode_ctx.hh"

namespace fpm {

// False after reporting: a parameter the row requires and the SID lacks as
// seg6local_missing_attr, a flavor or NEXT-C-SID length the rule refuses as
// seg6local_bad_flavors, a SID structure longer than 128 bits as `bad_structure` (the dialect's
// own reason). `wire_only`: sid_param bits the message carried that rib::seg6local does not hold.
bool check_sid_params(const rib::behavior_info& row, const rib::seg6local& sid, uint16_t wire_only, decode_ctx& ctx,
                      reason bad_structure = reason::seg6local_missing_attr);

}  // namespace fpm
