// Helpers for the encap decoder tests: hex literals cut from capture frames, attribute
// builders for the malformed cases, and a decode_ctx whose counters the tests inspect.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "rib/addr.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/nl_attr.hh"
#include "tests/support/nl_builder.hh"

namespace fpm::encap_test {

using buf = test_support::bytes;

using test_support::cat;
using test_support::ip4;
using test_support::ip6;
using test_support::nl::attr;

inline buf hex(std::string_view s) { return test_support::parse_hex(s); }
template <typename T>
buf host(T v) {  // netlink integers: host order
    return test_support::host(v);
}
inline buf nested(uint16_t type, const buf& payload) { return test_support::nl::nest(type, payload); }
inline buf bytes_of(const rib::ip6_addr& a) { return test_support::addr_bytes(a); }

// A decode_ctx plus questions about what it counted.
struct counted {
    ingest_stats stats;
    decode_ctx ctx{stats};

    uint64_t operator[](reason r) const { return stats.reasons[static_cast<size_t>(r)]; }
    uint64_t total() const { return std::accumulate(stats.reasons.begin(), stats.reasons.end(), uint64_t{0}); }
    // Exactly one event was counted, and it was `r`: a different check firing instead fails.
    bool only(reason r) const { return (*this)[r] == 1 && total() == 1; }
};

}  // namespace fpm::encap_test
