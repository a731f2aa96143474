// Frame level: FPM header, then dispatch of each netlink message on nlmsg_type.
#include <fmt/format.h>

#include "fpm/decoder.hh"
#include "fpm/framer.hh"
#include "fpm/rtnl.hh"

namespace fpm {

void decode_frame(nl::bytes frame, decode_ctx& ctx, std::vector<update>& out) {
    ++ctx.stats.frames;
    ctx.stats.bytes += frame.size();
    const size_t before = out.size();
    // The framer already checked the header and cut the frame by its length; check again so a
    // frame from anywhere else (tests, fuzzer) cannot make us misread. The span's size is the
    // frame's extent.
    if (frame.size() < fpm_header_size) {
        ctx.report(reason::frame_too_short, fmt::format("{} bytes", frame.size()));
        return;
    }
    if (frame[0] != fpm_version) {
        ctx.report(reason::frame_bad_version, fmt::format("version {}", frame[0]));
        return;
    }
    const nl::bytes payload = frame.subspan(fpm_header_size);
    if (payload.empty()) {  // well framed, but says nothing: not zebra's (it never sends one)
        ctx.report(reason::frame_empty, fmt::format("type {}", frame[1]));
        return;
    }
    switch (frame[1]) {
    case fpm_type_netlink:
        ++ctx.stats.netlink_frames;
        decode_netlink(payload, ctx, out);
        break;
    case fpm_type_protobuf:
        ++ctx.stats.protobuf_frames;
        decode_protobuf(payload, ctx, out);
        break;
    default:
        ctx.report(reason::frame_bad_type, fmt::format("type {}", frame[1]));
        return;
    }
    ctx.stats.updates += out.size() - before;
}

namespace {

bool is_sonic_type(uint16_t t) {
    switch (t) {
    case 1000: case 1001:  // SRv6 local SID
    case 2000: case 2001:  // PIC context
    case 3000: case 3001:  // SRv6 VPN route (NHG mode)
    case 4000: case 4001:  // SID list
        return true;
    default:
        return false;
    }
}

}  // namespace

void decode_netlink(nl::bytes payload, decode_ctx& ctx, std::vector<update>& out) {
    nl::message_walker walker(payload);
    while (auto m = walker.next()) {
        ++ctx.stats.messages;
        ++ctx.stats.msg_types[m->hdr.type];
        ctx.last_nlmsg_pid = m->hdr.pid;
        switch (m->hdr.type) {
        case rtnl::rtm_newroute:
        case rtnl::rtm_delroute:
            decode_route(*m, ctx, out);
            break;
        case rtnl::rtm_newnexthop:
        case rtnl::rtm_delnexthop:
            decode_nexthop(*m, ctx, out);
            break;
        default:
            if (is_sonic_type(m->hdr.type))
                decode_sonic(*m, ctx, out);
            else
                ctx.report(reason::ignored_msg_type, fmt::format("nlmsg_type {}", m->hdr.type));
            break;
        }
    }
    switch (walker.error()) {
    case nl::walk_error::none:
        break;
    case nl::walk_error::truncated_header:
        ctx.report(reason::nlmsg_truncated);
        break;
    case nl::walk_error::bad_len:
        ctx.report(reason::nlmsg_bad_len);
        break;
    case nl::walk_error::trailing:
        ctx.report(reason::nlmsg_trailing);
        break;
    }
}

}  // namespace fpm
