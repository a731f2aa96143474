// Byte strings for tests: hex in and out, concatenation, host-order integers, addresses.
// Shared by every test folder (tests/support/README.md); written from the wire layouts, never
// from the code under test.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rib/addr.hh"

namespace test_support {

using bytes = std::vector<uint8_t>;

// "0a 80 00 00", "0a800000", "02:00:00:00:00:01": whitespace and punctuation are separators.
// A letter that is no hex digit or an odd number of digits is a typo in the test: it throws.
inline bytes parse_hex(std::string_view s) {
    bytes out;
    int hi = -1;
    for (const char c : s) {
        int v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else if ((c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z'))
            throw std::invalid_argument(std::string("bad hex digit '") + c + "'");
        else
            continue;
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

// Lower-case hex; with `per_line`, a newline after every `per_line` bytes (readable diffs).
inline std::string to_hex(const bytes& b, size_t per_line = 0) {
    static constexpr char d[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < b.size(); ++i) {
        if (per_line && i && i % per_line == 0)
            s += '\n';
        s += d[b[i] >> 4];
        s += d[b[i] & 15];
    }
    return s;
}

inline bytes cat(std::initializer_list<bytes> parts) {
    bytes out;
    for (const auto& p : parts)
        out.insert(out.end(), p.begin(), p.end());
    return out;
}

// An integer in host order, as netlink carries them (zebra on x86).
template <typename T>
bytes host(T v) {
    bytes b(sizeof(T));
    std::memcpy(b.data(), &v, sizeof(T));
    return b;
}

inline rib::ip6_addr ip6(std::string_view s) {
    const auto a = rib::parse_ip6(s);
    if (!a)
        throw std::invalid_argument("bad IPv6 literal: " + std::string(s));
    return *a;
}

inline rib::ip4_addr ip4(std::string_view s) {
    const auto a = rib::parse_addr(s);
    if (!a || !a->is_v4())
        throw std::invalid_argument("bad IPv4 literal: " + std::string(s));
    return a->v4();
}

// An address's 4 or 16 bytes, network order.
inline bytes addr_bytes(std::string_view s) {
    const auto a = rib::parse_addr(s);
    if (!a)
        throw std::invalid_argument("bad address literal: " + std::string(s));
    const size_t n = a->is_v4() ? 4 : 16;
    return bytes(a->bytes.begin(), a->bytes.begin() + static_cast<std::ptrdiff_t>(n));
}
inline bytes addr_bytes(const rib::ip6_addr& a) { return bytes(a.bytes.begin(), a.bytes.end()); }

inline bytes read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw std::runtime_error("cannot open " + path);
    return bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace test_support
