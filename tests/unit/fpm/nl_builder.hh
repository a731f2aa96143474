// Byte builders for hand-made netlink/FPM test input. Integers are written in host order, as
// zebra does on x86; addresses and the FPM length in network order. Kept deliberately dumb so
// that a test reads like the wire layout it builds.
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

namespace fpm::test {

using buf = std::vector<uint8_t>;

inline buf cat(std::initializer_list<buf> parts) {
    buf out;
    for (const auto& p : parts)
        out.insert(out.end(), p.begin(), p.end());
    return out;
}

template <typename T>
buf le(T v) {
    buf b(sizeof(T));
    std::memcpy(b.data(), &v, sizeof(T));
    return b;
}
inline buf u8(uint8_t v) { return {v}; }
inline buf u16(uint16_t v) { return le(v); }
inline buf u32(uint32_t v) { return le(v); }

// "0a 80 00 00" or "0a800000": whitespace ignored.
inline buf hex(std::string_view s) {
    buf out;
    int hi = -1;
    for (char c : s) {
        int v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
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

inline buf addr(std::string_view text) {
    auto a = rib::parse_addr(text);
    if (!a)
        throw std::invalid_argument(std::string(text));
    const size_t n = a->is_v4() ? 4 : 16;
    return buf(a->bytes.begin(), a->bytes.begin() + static_cast<std::ptrdiff_t>(n));
}

// One attribute: {u16 len (header + payload, no padding); u16 type}, payload, padding to 4.
inline buf attr(uint16_t type, const buf& payload) {
    buf out = cat({u16(static_cast<uint16_t>(4 + payload.size())), u16(type), payload});
    out.resize((out.size() + 3) & ~size_t{3}, 0);
    return out;
}
inline buf nest(uint16_t type, const buf& children) { return attr(type | 0x8000, children); }

// struct rtmsg
inline buf rtmsg(uint8_t family, uint8_t dst_len, uint8_t table, uint8_t protocol, uint8_t type,
                 uint32_t flags = 0, uint8_t src_len = 0) {
    return cat({{family, dst_len, src_len, 0, table, protocol, 0, type}, u32(flags)});
}
// struct nhmsg
inline buf nhmsg(uint8_t family, uint8_t protocol, uint32_t flags = 0) {
    return cat({{family, 0, protocol, 0}, u32(flags)});
}
// struct rtnexthop + nested attributes
inline buf rtnh(uint8_t flags, uint8_t hops, int32_t ifindex, const buf& attrs = {}) {
    return cat({u16(static_cast<uint16_t>(8 + attrs.size())), {flags, hops}, le(ifindex), attrs});
}
// struct nexthop_grp
inline buf grp(uint32_t id, uint8_t weight, uint8_t weight_high = 0) {
    return cat({u32(id), {weight, weight_high}, u16(0)});
}

// nlmsghdr + body; flags/seq/pid as zebra sends them.
inline buf nlmsg(uint16_t type, const buf& body, uint16_t flags = 0x401, uint32_t pid = 0x1234) {
    buf out = cat({u32(static_cast<uint32_t>(16 + body.size())), u16(type), u16(flags), u32(0), u32(pid), body});
    out.resize((out.size() + 3) & ~size_t{3}, 0);
    return out;
}

// FPM header (network-order length, header included) + payload.
inline buf frame(const buf& payload, uint8_t type = 1) {
    const size_t n = 4 + payload.size();
    return cat({{1, type, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n & 0xff)}, payload});
}

inline buf read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw std::runtime_error("cannot open " + path);
    return buf(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

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
