// IPv4 header checksum verification (RFC 791, RFC 1071) for the classify stage.
// rte_raw_cksum adds 16-bit words one at a time (one dependent add per word, ~7 cycles for 20
// bytes in the worker's profile); a header is a whole number of 32-bit words, so they are added
// into a 64-bit sum, which is then tested modulo 0xffff. The one's complement sum does not depend
// on the word size (2^16 = 1 mod 0xffff) nor on the byte order; a header is correct when the sum
// is 0xffff.
#pragma once

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
    // Two independent sums of the 20 bytes every header has, then the options. The 64-bit sum
    // of 32-bit words cannot overflow (15 words at most).
    uint64_t s = (word(0) + word(4)) + (word(8) + word(12)) + word(16);
    for (uint32_t o = 20; o < ihl; o += 4)
        s += word(o);
    // The header is correct when the one's complement sum of its 16-bit words is 0xffff. That
    // sum is congruent to s modulo 0xffff (2^16 = 1 mod 0xffff, so a 32-bit word counts as its
    // two halves, in either byte order), and it is 0xffff exactly when it is congruent to 0 and
    // not every word is 0. GCC tests divisibility by the odd constant with one multiplication
    // and a compare, instead of the two end-around-carry folds.
    return s != 0 && s % 0xffffu == 0;
}

}  // namespace fwd
