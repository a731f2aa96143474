// Bounds-checked, allocation-free views over netlink messages and attributes.
// Every read goes through a span whose size was checked; nothing is read past it, and
// integers are memcpy'd so unaligned buffers are fine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

namespace fpm::nl {

using bytes = std::span<const uint8_t>;

constexpr size_t align4(size_t n) { return (n + 3u) & ~size_t{3}; }

constexpr uint16_t nla_f_nested = 0x8000;
constexpr uint16_t nla_f_net_byteorder = 0x4000;
constexpr uint16_t nla_type_mask = 0x3fff;

// Host-order integer from the start of `b` (netlink integers are in the sender's host order).
template <typename T>
std::optional<T> get(bytes b) {
    if (b.size() < sizeof(T))
        return std::nullopt;
    T v;
    std::memcpy(&v, b.data(), sizeof(T));
    return v;
}

// Exactly-sized variant: attributes whose payload must be exactly sizeof(T).
template <typename T>
std::optional<T> get_exact(bytes b) {
    if (b.size() != sizeof(T))
        return std::nullopt;
    return get<T>(b);
}

struct attr {
    uint16_t type = 0;      // flags masked off
    bool nested = false;    // NLA_F_NESTED was set
    bytes payload;          // exactly rta_len - 4 bytes
};

// Iterates the attributes packed in `b`. A malformed header or an rta_len running past
// the container stops the walk and sets `truncated()`; the caller counts it and moves on.
class attr_walker {
public:
    explicit attr_walker(bytes b) : _rest(b) {}

    std::optional<attr> next() {
        if (_rest.empty())
            return std::nullopt;
        if (_rest.size() < 4) {
            _truncated = true;
            _rest = {};
            return std::nullopt;
        }
        uint16_t len = 0, type = 0;
        std::memcpy(&len, _rest.data(), 2);
        std::memcpy(&type, _rest.data() + 2, 2);
        if (len < 4 || len > _rest.size()) {
            _truncated = true;
            _rest = {};
            return std::nullopt;
        }
        attr a{static_cast<uint16_t>(type & nla_type_mask), (type & nla_f_nested) != 0,
               _rest.subspan(4, len - 4u)};
        const size_t step = align4(len);
        _rest = step >= _rest.size() ? bytes{} : _rest.subspan(step);
        return a;
    }

    bool truncated() const { return _truncated; }

private:
    bytes _rest;
    bool _truncated = false;
};

// struct nlmsghdr, read field by field.
struct msg_header {
    uint32_t len = 0;
    uint16_t type = 0;
    uint16_t flags = 0;
    uint32_t seq = 0;
    uint32_t pid = 0;
};
constexpr size_t msg_header_size = 16;

constexpr uint16_t nlm_f_request = 0x001;
constexpr uint16_t nlm_f_replace = 0x100;
constexpr uint16_t nlm_f_create = 0x400;

struct message {
    msg_header hdr;
    bytes body;  // nlmsg_len - 16 bytes: the family header plus attributes
};

enum class walk_error : uint8_t { none, truncated_header, bad_len, trailing };

// Iterates the netlink messages of one FPM frame payload (NLMSG_OK / NLMSG_NEXT by payload length).
class message_walker {
public:
    explicit message_walker(bytes payload) : _rest(payload) {}

    std::optional<message> next() {
        if (_rest.empty())
            return std::nullopt;
        if (_rest.size() < msg_header_size) {
            // Fewer than 4 stray bytes are padding noise; anything larger is a cut header.
            _error = _rest.size() < 4 ? walk_error::trailing : walk_error::truncated_header;
            _rest = {};
            return std::nullopt;
        }
        message m;
        std::memcpy(&m.hdr.len, _rest.data(), 4);
        std::memcpy(&m.hdr.type, _rest.data() + 4, 2);
        std::memcpy(&m.hdr.flags, _rest.data() + 6, 2);
        std::memcpy(&m.hdr.seq, _rest.data() + 8, 4);
        std::memcpy(&m.hdr.pid, _rest.data() + 12, 4);
        if (m.hdr.len < msg_header_size || m.hdr.len > _rest.size()) {
            _error = walk_error::bad_len;
            _rest = {};
            return std::nullopt;
        }
        m.body = _rest.subspan(msg_header_size, m.hdr.len - msg_header_size);
        const size_t step = align4(m.hdr.len);
        _rest = step >= _rest.size() ? bytes{} : _rest.subspan(step);
        return m;
    }

    walk_error error() const { return _error; }

private:
    bytes _rest;
    walk_error _error = walk_error::none;
};

}  // namespace fpm::nl
