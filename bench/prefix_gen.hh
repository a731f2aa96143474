// Random prefixes with the distribution every fib bench uses (documented in BENCHMARKS.md).
#pragma once

#include <cstdint>
#include <random>

#include "rib/addr.hh"
#include "fib/datapath/lpm_key.hh"

namespace bench {

// IPv4: /24 60 %, /20-/23 20 %, /16-/19 10 %, /25-/32 10 %; IPv6: /48 50 %, /56 20 %, /64 25 %,
// /128 5 %. `wide` (a full table): 1.0.0.0-223.255.255.255 and 2000::/4; otherwise a customer
// VRF's space, 10.0.0.0/8 and 2001:db8::/32.
inline rib::prefix random_prefix(rib::family af, std::mt19937_64& rng, bool wide = false) {
    using fib::prefix_mask;
    using fib::u128;
    rib::prefix p;
    p.af = af;
    const unsigned d = static_cast<unsigned>(rng() % 100);
    if (af == rib::family::ipv4) {
        p.len = static_cast<uint8_t>(d < 60 ? 24 : d < 80 ? 20 + rng() % 4 : d < 90 ? 16 + rng() % 4 : 25 + rng() % 8);
        const uint32_t base = wide ? static_cast<uint32_t>(1 + rng() % 223) << 24 : 10u << 24;
        const auto a = static_cast<uint32_t>(base | (rng() & 0xffffff)) & prefix_mask<uint32_t>(p.len);
        for (int i = 0; i < 4; ++i)
            p.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(a >> (24 - 8 * i));
        return p;
    }
    p.len = static_cast<uint8_t>(d < 50 ? 48 : d < 70 ? 56 : d < 95 ? 64 : 128);
    const u128 hi = wide ? (u128{0x2} << 124) | (u128{rng() & 0x0fffffff} << 96) : u128{0x20010db8} << 96;
    const u128 k = (hi | (u128{rng()} << 32) | u128{rng() & 0xffffffff}) & prefix_mask<u128>(p.len);
    p.bytes = fib::key6_bytes(k);
    return p;
}

}  // namespace bench
