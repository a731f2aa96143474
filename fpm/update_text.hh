// One-line text of a decoded update, for debug logs: "+route 10.0.0.0/24 table 254 nh 12".
#pragma once

#include <string>

#include "fpm/update.hh"

namespace fpm {

std::string to_string(const update& u);

}  // namespace fpm
