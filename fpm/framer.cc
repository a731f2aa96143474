#include "fpm/framer.hh"

namespace fpm {

void framer::feed(std::span<const uint8_t> data) {
    if (_lost)
        return;  // nothing after a bad header can be trusted; the owner resets the connection
    // Drop consumed frames first so the buffer holds at most one partial frame plus `data`.
    if (_pos > 0) {
        _buf.erase(_buf.begin(), _buf.begin() + static_cast<std::ptrdiff_t>(_pos));
        _pos = 0;
    }
    _buf.insert(_buf.end(), data.begin(), data.end());
}

std::optional<std::span<const uint8_t>> framer::next() {
    if (_lost || buffered() < fpm_header_size)
        return std::nullopt;
    const uint8_t* h = _buf.data() + _pos;
    // Version and type must both be right (FRR's own reader tests them with &&, which is wrong).
    if (h[0] != fpm_version) {
        _lost = reason::frame_bad_version;
        return std::nullopt;
    }
    if (h[1] != fpm_type_netlink && h[1] != fpm_type_protobuf) {
        _lost = reason::frame_bad_type;
        return std::nullopt;
    }
    const size_t len = static_cast<size_t>(h[2]) << 8 | h[3];
    if (len < fpm_header_size) {
        _lost = reason::frame_too_short;
        return std::nullopt;
    }
    if (buffered() < len)
        return std::nullopt;
    std::span<const uint8_t> frame{h, len};
    _pos += len;
    return frame;
}

void framer::reset() {
    _buf.clear();
    _pos = 0;
    _lost.reset();
}

}  // namespace fpm
