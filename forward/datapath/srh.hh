// View of a Segment Routing Header inside a packet (RFC 8754 §2): bounds first, then the
// consistency checks of RFC 8986 §4.1 S08-S09. Packet-path code: the view never reads
// outside the bytes it was made from.
//
//  0        8        16       24       32
//  | Next Hdr | Hdr Ext Len | Routing Type=4 | Segments Left |
//  | Last Entry | Flags | Tag (16)                           |
//  | Segment List[0] (128) ... Segment List[Last Entry]       | optional TLVs
#pragma once

#include <cstdint>

namespace fwd {

enum class srh_status : uint8_t {
    ok,
    truncated,      // fewer than 8 bytes, or fewer than (Hdr Ext Len + 1) * 8
    bad_len,        // Last Entry > (Hdr Ext Len / 2) - 1: the list does not fit the header
    segments_left,  // Segments Left > Last Entry + 1
};

class srh_view {
public:
    static constexpr uint32_t fixed_size = 8;
    static constexpr uint8_t routing_type_srh = 4;

    // `p` points at the routing header, `avail` bytes from there are readable. Checks only
    // that the whole header (as Hdr Ext Len announces it) is inside `avail`.
    static srh_status make(uint8_t* p, uint32_t avail, srh_view& out) {
        if (avail < fixed_size)
            return srh_status::truncated;
        const uint32_t len = (static_cast<uint32_t>(p[1]) + 1) * 8;
        if (len > avail)
            return srh_status::truncated;
        out._p = p;
        return srh_status::ok;
    }

    // RFC 8986 §4.1 S08-S09 (also RFC 8754 §4.3.1.1): max_LE = Hdr Ext Len / 2 - 1.
    srh_status validate() const {
        if (static_cast<int>(last_entry()) > static_cast<int>(hdr_ext_len() / 2) - 1)
            return srh_status::bad_len;
        if (segments_left() > static_cast<uint32_t>(last_entry()) + 1)
            return srh_status::segments_left;
        return srh_status::ok;
    }

    uint8_t next_header() const { return _p[0]; }
    uint8_t hdr_ext_len() const { return _p[1]; }
    uint8_t routing_type() const { return _p[2]; }
    uint8_t segments_left() const { return _p[3]; }
    uint8_t last_entry() const { return _p[4]; }
    uint8_t flags() const { return _p[5]; }
    uint16_t tag() const { return static_cast<uint16_t>(_p[6] << 8 | _p[7]); }
    uint32_t length() const { return (static_cast<uint32_t>(_p[1]) + 1) * 8; }
    bool is_srh() const { return routing_type() == routing_type_srh; }

    // Segment List[i]; only valid after validate() and for i <= last_entry().
    uint8_t* segment(uint32_t i) const { return _p + fixed_size + 16 * i; }

    void set_segments_left(uint8_t sl) const { _p[3] = sl; }
    uint8_t* data() const { return _p; }

private:
    uint8_t* _p = nullptr;
};

}  // namespace fwd
