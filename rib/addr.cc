#include "rib/addr.hh"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace rib {

bool ip6_addr::is_zero() const {
    return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

ip_addr::ip_addr(ip4_addr a) : af(family::ipv4) { std::copy(a.bytes.begin(), a.bytes.end(), bytes.begin()); }
ip_addr::ip_addr(ip6_addr a) : af(family::ipv6), bytes(a.bytes) {}

ip4_addr ip_addr::v4() const {
    ip4_addr r;
    std::copy_n(bytes.begin(), 4, r.bytes.begin());
    return r;
}

ip6_addr ip_addr::v6() const { return ip6_addr{bytes}; }

prefix prefix::make(const ip_addr& a, uint8_t len) {
    prefix p;
    p.af = a.af;
    p.len = std::min(len, max_len(a.af));
    p.bytes = a.bytes;
    const size_t nbytes = a.is_v4() ? 4 : 16;
    for (size_t i = 0; i < 16; ++i) {
        const size_t bit = i * 8;
        if (i >= nbytes || bit >= p.len) {
            p.bytes[i] = 0;
        } else if (bit + 8 > p.len) {
            const auto keep = static_cast<unsigned>(p.len - bit);  // 1..7 leading bits survive
            p.bytes[i] = static_cast<uint8_t>(p.bytes[i] & (0xffu << (8 - keep)));
        }
    }
    return p;
}

ip_addr prefix::addr() const {
    ip_addr a;
    a.af = af;
    a.bytes = bytes;
    return a;
}

bool prefix::contains(const ip_addr& a) const {
    return a.af == af && make(a, len) == *this;
}

std::string to_string(const ip4_addr& a) {
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, a.bytes.data(), buf, sizeof buf);
    return buf;
}

std::string to_string(const ip6_addr& a) {
    char buf[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, a.bytes.data(), buf, sizeof buf);
    return buf;
}

std::string to_string(const ip_addr& a) { return a.is_v4() ? to_string(a.v4()) : to_string(a.v6()); }

std::string to_string(const prefix& p) { return to_string(p.addr()) + "/" + std::to_string(p.len); }

std::optional<ip_addr> parse_addr(std::string_view s) {
    std::string z(s);
    ip4_addr a4;
    if (inet_pton(AF_INET, z.c_str(), a4.bytes.data()) == 1)
        return ip_addr(a4);
    ip6_addr a6;
    if (inet_pton(AF_INET6, z.c_str(), a6.bytes.data()) == 1)
        return ip_addr(a6);
    return std::nullopt;
}

std::optional<ip6_addr> parse_ip6(std::string_view s) {
    auto a = parse_addr(s);
    if (!a || !a->is_v6())
        return std::nullopt;
    return a->v6();
}

std::optional<prefix> parse_prefix(std::string_view s) {
    const auto slash = s.find('/');
    auto a = parse_addr(s.substr(0, slash));
    if (!a)
        return std::nullopt;
    unsigned len = prefix::max_len(a->af);
    if (slash != std::string_view::npos) {
        const auto tail = s.substr(slash + 1);
        if (tail.empty() || tail.size() > 3)
            return std::nullopt;
        len = 0;
        for (char c : tail) {
            if (c < '0' || c > '9')
                return std::nullopt;
            len = len * 10 + static_cast<unsigned>(c - '0');
        }
        if (len > prefix::max_len(a->af))
            return std::nullopt;
    }
    return prefix::make(*a, static_cast<uint8_t>(len));
}

size_t prefix_hash::operator()(const prefix& p) const noexcept {
    // FNV-1a over the significant bytes; the control plane only, never per packet.
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint8_t b) {
        h ^= b;
        h *= 1099511628211ull;
    };
    mix(static_cast<uint8_t>(p.af));
    mix(p.len);
    for (uint8_t b : p.bytes)
        mix(b);
    return static_cast<size_t>(h);
}

}  // namespace rib
