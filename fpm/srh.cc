#include "fpm/srh.hh"

#include <algorithm>

#include <fmt/format.h>

namespace fpm {

bool decode_srh(nl::bytes srh, decode_ctx& ctx, std::vector<rib::ip6_addr>& visiting) {
    if (srh.size() < srh_fixed_size) {
        ctx.report(reason::seg6_bad_srh, fmt::format("{} bytes, shorter than the 8-byte header", srh.size()));
        return false;
    }
    const uint8_t hdrlen = srh[1], type = srh[2], segments_left = srh[3], first_segment = srh[4];
    if (type != srh_routing_type) {
        ctx.report(reason::seg6_bad_srh, fmt::format("routing type {}", type));
        return false;
    }
    // hdrlen counts 8-byte units after the first 8: a mismatch is a length lie one way or the other.
    const size_t claimed = srh_fixed_size + size_t{hdrlen} * 8;
    if (claimed != srh.size()) {
        ctx.report(reason::seg6_bad_srh, fmt::format("hdrlen {} says {} bytes, attribute holds {}", hdrlen,
                                                     claimed, srh.size()));
        return false;
    }
    if (hdrlen == 0) {
        ctx.report(reason::seg6_no_segments, "SRH hdrlen 0");
        return false;
    }
    // TLVs may follow the segments inside hdrlen, so hdrlen only bounds the list from above.
    const size_t count = size_t{first_segment} + 1;
    if (count * 16 > size_t{hdrlen} * 8) {
        ctx.report(reason::seg6_bad_srh, fmt::format("first_segment {} past the {} segment bytes", first_segment,
                                                     size_t{hdrlen} * 8));
        return false;
    }
    if (segments_left > first_segment) {
        ctx.report(reason::seg6_bad_srh,
                   fmt::format("segments_left {} > first_segment {}", segments_left, first_segment));
        return false;
    }
    std::vector<rib::ip6_addr> list(count);
    // The wire lists the last SID first: wire segment i is visited (count - 1 - i)th.
    for (size_t i = 0; i < count; ++i) {
        const auto seg = srh.subspan(srh_fixed_size + i * 16, 16);
        std::copy(seg.begin(), seg.end(), list[count - 1 - i].bytes.begin());
    }
    visiting = std::move(list);
    return true;
}

}  // namespace fpm
