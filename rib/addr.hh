// Address and prefix value types shared by the whole model. No strings in the model:
// text conversion lives here and is used only at the edges (CLI, logs, config).
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace rib {

enum class family : uint8_t { ipv4 = 2, ipv6 = 10 };  // AF_INET / AF_INET6 values

struct ip4_addr {
    std::array<uint8_t, 4> bytes{};  // network order
    auto operator<=>(const ip4_addr&) const = default;
};

struct ip6_addr {
    std::array<uint8_t, 16> bytes{};  // network order
    auto operator<=>(const ip6_addr&) const = default;
    bool is_zero() const;
};

// Either family; bytes beyond the family's size are zero.
struct ip_addr {
    family af = family::ipv4;
    std::array<uint8_t, 16> bytes{};

    ip_addr() = default;
    ip_addr(ip4_addr a);
    ip_addr(ip6_addr a);
    bool is_v4() const { return af == family::ipv4; }
    bool is_v6() const { return af == family::ipv6; }
    ip4_addr v4() const;
    ip6_addr v6() const;
    auto operator<=>(const ip_addr&) const = default;
};

// A prefix with host bits cleared: two prefixes are equal iff they cover the same set.
struct prefix {
    family af = family::ipv4;
    uint8_t len = 0;
    std::array<uint8_t, 16> bytes{};

    static prefix make(const ip_addr& a, uint8_t len);  // clears host bits; len clamped by caller
    static uint8_t max_len(family f) { return f == family::ipv4 ? 32 : 128; }
    ip_addr addr() const;
    bool contains(const ip_addr& a) const;
    auto operator<=>(const prefix&) const = default;
};

std::string to_string(const ip4_addr&);
std::string to_string(const ip6_addr&);
std::string to_string(const ip_addr&);
std::string to_string(const prefix&);  // "10.0.0.0/24", "fc00::/48"

std::optional<ip_addr> parse_addr(std::string_view);
std::optional<ip6_addr> parse_ip6(std::string_view);
std::optional<prefix> parse_prefix(std::string_view);  // "a/len" or a bare address as host prefix

struct prefix_hash {
    size_t operator()(const prefix& p) const noexcept;
};

}  // namespace rib
