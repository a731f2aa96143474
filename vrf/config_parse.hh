// Parsers for srv6d's VRF and encap-source config values, with errors an operator can act on.
//   vrf = red table 10 members eth1,eth2
//   encap-source = fc00:0:1::1
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

// An IPv6 unicast address usable as the outer source (check_encap_source rules).
parsed<rib::ip6_addr> parse_encap_source(std::string_view text);

}  // namespace vrf
