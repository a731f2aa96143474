// IPv4 header checksum verification (RFC 791, RFC 1071) for the classify stage.
// rte_raw_cksum adds 16-bit words one at a time (one dependent add per word, ~7 cycles for 20
// bytes in the worker's profile); a header is a whole number of 32-bit words, so they are added
// into a 64-bit sum, folded to 16 bits at the end. The one's complement sum does not depend on
// the word size (2^16 = 1 mod 0xffff) nor on the byte order; a header is correct when the sum
// is 0xffff.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace fwd {

// `ihl`: the header length in bytes, a multiple of 4 in [20, 60], all readable from `ip`.
inline bool ip4_header_sum_ok(const uint8_t* ip, uint32_t ihl) {
    const auto word = [ip](uint32_t o) {
        uint32_t w;
        std::memcpy(&w, ip + o, 4);
        return static_cast<uint64_t>(w);
    };
    // Two independent sums of the 20 bytes every header has, then the options.
    uint64_t s = (word(0) + word(4)) + (word(8) + word(12)) + word(16);
    for (uint32_t o = 20; o < ihl; o += 4)
        s += word(o);
    // Folded with rotates (as Linux's csum_fold): the high half of x + rotr(x, half) is the
    // one's complement sum of x's two halves, the end-around carry included. Two 3-operation
    // folds instead of four mask-shift-add rounds.
    const uint32_t t = static_cast<uint32_t>((s + std::rotr(s, 32)) >> 32);
    const uint32_t u = (t + std::rotr(t, 16)) >> 16;
    return u == 0xffffu;
}

}  // namespace fwd
