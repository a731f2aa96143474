// The FPM decoder tests' builders (tests/support/nl_builder.hh under the names these tests use)
// and a harness that decodes with a fresh context.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rib/addr.hh"
#include "fpm/decoder.hh"
#include "fpm/reasons.hh"
#include "tests/support/nl_builder.hh"

namespace fpm::test {

using buf = test_support::bytes;

using test_support::cat;
using test_support::read_file;
using test_support::nl::attr;
using test_support::nl::grp;
using test_support::nl::nest;
using test_support::nl::nhmsg;
using test_support::nl::nlmsg;
using test_support::nl::rtmsg;
using test_support::nl::rtnh;
using test_support::nl::u16;
using test_support::nl::u32;
using test_support::nl::u8;

template <typename T>
buf le(T v) {
    return test_support::host(v);
}
inline buf hex(std::string_view s) { return test_support::parse_hex(s); }
inline buf addr(std::string_view text) { return test_support::addr_bytes(text); }
inline buf frame(const buf& payload, uint8_t type = 1) { return test_support::nl::fpm_frame(payload, type); }

// Decodes with a fresh context and keeps what a test wants to look at.
struct decoded {
    ingest_stats stats;
    std::vector<update> out;

    uint64_t count(reason r) const { return stats.reasons[static_cast<size_t>(r)]; }
    uint64_t errors() const {
        uint64_t n = 0;
        for (size_t i = 0; i < reason_count; ++i)
            if (is_error(static_cast<reason>(i)))
                n += stats.reasons[i];
        return n;
    }
    uint64_t all_reasons() const {
        uint64_t n = 0;
        for (auto v : stats.reasons)
            n += v;
        return n;
    }
    // Names of every reason counted, for readable failure messages.
    std::string reasons_text() const {
        std::string s;
        for (size_t i = 0; i < reason_count; ++i)
            if (stats.reasons[i])
                s += std::string(name(static_cast<reason>(i))) + "=" + std::to_string(stats.reasons[i]) + " ";
        return s;
    }
};

inline decoded decode_frames(std::initializer_list<buf> frames) {
    decoded d;
    decode_ctx ctx(d.stats);
    for (const auto& f : frames)
        decode_frame(f, ctx, d.out);
    return d;
}
inline decoded decode_msgs(std::initializer_list<buf> msgs) {
    buf payload;
    for (const auto& m : msgs)
        payload.insert(payload.end(), m.begin(), m.end());
    return decode_frames({frame(payload)});
}

template <typename T>
const T& body(const update& u) {
    return std::get<T>(u.body);
}

}  // namespace fpm::test
