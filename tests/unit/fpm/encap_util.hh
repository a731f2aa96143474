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

namespace fpm::encap_test {

using buf = std::vector<uint8_t>;

// "08 00 01 00" or "08000100"; whitespace ignored.
inline buf hex(std::string_view s) {
    buf out;
    int hi = -1;
    for (char c : s) {
        int v = -1;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else if (c == ' ' || c == '\n')
            continue;
        else
            throw std::invalid_argument("bad hex digit");
        if (hi < 0) {
            hi = v;
        } else {
            out.push_back(static_cast<uint8_t>(hi << 4 | v));
            hi = -1;
        }
    }
    if (hi >= 0)
        throw std::invalid_argument("odd number of hex digits");
    return out;
}

inline buf cat(std::initializer_list<buf> parts) {
    buf out;
    for (const auto& p : parts)
        out.insert(out.end(), p.begin(), p.end());
    return out;
}

template <typename T>
buf host(T v) {  // netlink integers: host order
    buf b(sizeof(T));
    std::memcpy(b.data(), &v, sizeof(T));
    return b;
}

// One netlink attribute, padded to 4 like the kernel's nla_put.
inline buf attr(uint16_t type, const buf& payload) {
    buf out = cat({host(static_cast<uint16_t>(payload.size() + 4)), host(type), payload});
    out.resize(nl::align4(out.size()), 0);
    return out;
}
inline buf nested(uint16_t type, const buf& payload) {
    return attr(static_cast<uint16_t>(type | nl::nla_f_nested), payload);
}

inline rib::ip6_addr ip6(std::string_view s) {
    const auto a = rib::parse_ip6(s);
    if (!a)
        throw std::invalid_argument("bad IPv6 literal");
    return *a;
}
inline rib::ip4_addr ip4(std::string_view s) {
    const auto a = rib::parse_addr(s);
    if (!a || !a->is_v4())
        throw std::invalid_argument("bad IPv4 literal");
    return a->v4();
}
inline buf bytes_of(const rib::ip6_addr& a) { return buf(a.bytes.begin(), a.bytes.end()); }

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
