// Address keys of the compiled LPMs: IPv4 as a host-order u32, IPv6 as a host-order unsigned
// 128-bit integer, so that "address order" is plain integer order and a prefix is the closed
// interval [lo, hi] of keys.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "rib/addr.hh"

namespace fib {

__extension__ typedef unsigned __int128 u128;

template <class K>
struct key_traits;
template <>
struct key_traits<uint32_t> {
    static constexpr unsigned bits = 32;
};
template <>
struct key_traits<u128> {
    static constexpr unsigned bits = 128;
};

// Network-order bytes to key.
inline uint32_t key4(const uint8_t* b) {
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}
inline u128 key6(const uint8_t* b) {
    uint64_t hi, lo;
    std::memcpy(&hi, b, 8);
    std::memcpy(&lo, b + 8, 8);
    return (u128{__builtin_bswap64(hi)} << 64) | u128{__builtin_bswap64(lo)};
}
inline std::array<uint8_t, 16> key6_bytes(u128 k) {
    std::array<uint8_t, 16> out{};
    for (int i = 15; i >= 0; --i) {
        out[static_cast<size_t>(i)] = static_cast<uint8_t>(k);
        k >>= 8;
    }
    return out;
}

// The network mask of `len` bits (len 0 = no bits).
template <class K>
constexpr K prefix_mask(unsigned len) {
    return len == 0 ? K{0} : static_cast<K>(~K{0} << (key_traits<K>::bits - len));
}

template <class K>
constexpr K prefix_last(K lo, unsigned len) {
    return static_cast<K>(lo | static_cast<K>(~prefix_mask<K>(len)));
}

}  // namespace fib
