#include "mgmt/framing.hh"

namespace mgmt {

bool encode_frame(const google::protobuf::MessageLite& m, std::string& out, size_t max) {
    const size_t len = m.ByteSizeLong();
    if (len > max || len > UINT32_MAX)
        return false;
    const size_t start = out.size();
    out.resize(start + frame_header_size + len);
    auto* p = reinterpret_cast<uint8_t*>(out.data() + start);
    const auto n = static_cast<uint32_t>(len);
    p[0] = static_cast<uint8_t>(n >> 24);
    p[1] = static_cast<uint8_t>(n >> 16);
    p[2] = static_cast<uint8_t>(n >> 8);
    p[3] = static_cast<uint8_t>(n);
    if (!m.SerializeToArray(p + frame_header_size, static_cast<int>(len))) {
        out.resize(start);
        return false;
    }
    return true;
}

void frame_reader::feed(std::span<const uint8_t> data) {
    feed(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

void frame_reader::feed(std::string_view data) {
    if (_oversize)
        return;  // nothing after a bad header can be trusted
    // Drop what next() already handed out before growing the buffer.
    if (_pos > 0) {
        _buf.erase(0, _pos);
        _pos = 0;
    }
    _buf.append(data);
}

std::optional<std::string_view> frame_reader::next() {
    if (_oversize || buffered() < frame_header_size)
        return std::nullopt;
    const auto* p = reinterpret_cast<const uint8_t*>(_buf.data() + _pos);
    const uint32_t len = uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
    if (len > _max) {
        _oversize = len;
        return std::nullopt;
    }
    if (buffered() - frame_header_size < len)
        return std::nullopt;
    const std::string_view body(_buf.data() + _pos + frame_header_size, len);
    _pos += frame_header_size + len;
    return body;
}

}  // namespace mgmt
