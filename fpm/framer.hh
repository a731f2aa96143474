// FPM framing (fpm/fpm.h): {u8 version=1, u8 type, u16 length (network order, header included)}.
// TCP is a byte stream: a read may end mid-header or hold several frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "fpm/reasons.hh"

namespace fpm {

constexpr uint8_t fpm_version = 1;
constexpr uint8_t fpm_type_netlink = 1;
constexpr uint8_t fpm_type_protobuf = 2;
constexpr size_t fpm_header_size = 4;
constexpr size_t fpm_max_frame = 65535;  // u16 length; FRR >= 10.4 fills up to 64 KiB

class framer {
public:
    // Append bytes received from the socket.
    void feed(std::span<const uint8_t> data);

    // The next complete frame (header included), valid until the next feed()/next();
    // nullopt when more bytes are needed or framing was lost (see lost()).
    std::optional<std::span<const uint8_t>> next();

    // Set once a header is invalid: the stream cannot be resynchronised, the connection must
    // be reset (zebra then replays everything).
    std::optional<reason> lost() const { return _lost; }

    size_t buffered() const { return _buf.size() - _pos; }
    void reset();

private:
    std::vector<uint8_t> _buf;
    size_t _pos = 0;
    std::optional<reason> _lost;
};

}  // namespace fpm
