// Framing of the management socket: every message is its serialized protobuf preceded by its
// length as a 4-byte big-endian integer. A unix stream socket may deliver any split of that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <google/protobuf/message_lite.h>

namespace mgmt {

constexpr size_t frame_header_size = 4;
// Far above any real RIB dump's answer, small enough that a broken peer cannot make us buffer
// without bound: the length is checked before any of the body is accepted.
constexpr size_t max_message_size = size_t{16} << 20;
// What the server buffers of one request: every request srv6ctl sends is far smaller.
constexpr size_t max_request_size = size_t{64} << 10;

// Appends the length prefix and the serialized message to `out`; false (and `out` unchanged)
// when the message is larger than `max` or fails to serialize.
bool encode_frame(const google::protobuf::MessageLite& m, std::string& out,
                  size_t max = max_message_size);

// Reassembles messages from arbitrary chunks of the byte stream.
class frame_reader {
public:
    explicit frame_reader(size_t max = max_message_size) : _max(max) {}

    void feed(std::span<const uint8_t> data);
    void feed(std::string_view data);

    // The body of the next complete message, valid until the next feed() or next(); nullopt
    // when more bytes are needed or the stream announced an oversize message (see oversize()).
    std::optional<std::string_view> next();

    // Set once a header announces more than `max` bytes: the stream cannot continue.
    std::optional<uint32_t> oversize() const { return _oversize; }
    size_t buffered() const { return _buf.size() - _pos; }

private:
    std::string _buf;
    size_t _pos = 0;  // start of the first unconsumed byte
    size_t _max;
    std::optional<uint32_t> _oversize;
};

}  // namespace mgmt
