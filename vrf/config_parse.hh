// Parsers for srv6d's VRF config values, with errors an operator can act on.
//   vrf = red table 10 members eth1,eth2
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rib/addr.hh"
#include "vrf/spec.hh"

namespace vrf {

template <typename T>
struct parsed {
    std::optional<T> value;
    std::string error;  // set iff !value
    explicit operator bool() const { return value.has_value(); }
};

// The blank-separated words of a config value (blanks: space, tab, CR, LF).
std::vector<std::string_view> split_words(std::string_view s);

// "NAME table ID [members IF[,IF...]]"; a leading "vrf =" is accepted, so a whole config line
// parses too. Tokens are separated by blanks; the member list may also be spaced after commas.
parsed<vrf_spec> parse_vrf(std::string_view line);


}  // namespace vrf
