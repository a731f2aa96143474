// Pure decoders: one complete FPM frame in, typed updates out. No sockets, no state kept
// between frames, so every function here can be unit-tested and fuzzed on raw bytes.
#pragma once

#include <span>
#include <vector>

#include "rib/model.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/nl_attr.hh"
#include "fpm/update.hh"

namespace fpm {

// A whole frame, header included (as returned by framer::next()).
void decode_frame(nl::bytes frame, decode_ctx& ctx, std::vector<update>& out);

// Netlink payload of a type-1 frame: one or more netlink messages back to back.
void decode_netlink(nl::bytes payload, decode_ctx& ctx, std::vector<update>& out);

// One message each (dispatch on nlmsg_type happens in decode_netlink).
void decode_route(const nl::message& m, decode_ctx& ctx, std::vector<update>& out);    // 24/25
void decode_nexthop(const nl::message& m, decode_ctx& ctx, std::vector<update>& out);  // 104/105
void decode_sonic(const nl::message& m, decode_ctx& ctx, std::vector<update>& out);    // 1000.. 4001

// Encap nests (RTA_ENCAP / NHA_ENCAP payloads) into the nexthop they belong to.
// Return false (after reporting why) when the nest is unusable.
bool decode_seg6(nl::bytes nest, decode_ctx& ctx, rib::seg6_encap& out);
bool decode_seg6local(nl::bytes nest, decode_ctx& ctx, rib::seg6local& out);
bool decode_mpls(nl::bytes nest, decode_ctx& ctx, std::vector<uint32_t>& labels);
// Applies one RTA_ENCAP_TYPE/RTA_ENCAP pair (in wire order) to `nh`; unknown types are skipped and counted.
void apply_encap(uint16_t encap_type, nl::bytes nest, decode_ctx& ctx, rib::nexthop& nh);

// Payload of a type-2 frame: one serialized fpm.Message (FRR's legacy protobuf encoding).
void decode_protobuf(nl::bytes payload, decode_ctx& ctx, std::vector<update>& out);

}  // namespace fpm
