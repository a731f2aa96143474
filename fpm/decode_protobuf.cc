// FRR's legacy protobuf encoding (FPM frame type 2, one fpm.Message per frame). Deprecated in
// FRR since 7.2 and off in Debian's build, but still in FRR master: accepted for routes, and
// for the SRv6 messages fpm.proto defines (which no FRR code fills yet).
#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "fpm.pb.h"
#include "rib/behaviors.hh"
#include "fpm/decoder.hh"
#include "fpm/sid_check.hh"

namespace fpm {
namespace {

namespace pb = ::srv6d::wire::fpm;
namespace qpb = ::srv6d::wire::qpb;

constexpr uint16_t pb_type_key = 0x8000;  // ingest_stats::msg_types key space of protobuf

// zebra2proto() numbering, so that routes look the same whichever dialect brought them.
uint8_t to_rtm_protocol(qpb::Protocol p) {
    constexpr uint8_t rtprot_rip = 189, rtprot_ripng = 190;
    switch (p) {
    case qpb::LOCAL:
    case qpb::CONNECTED:
    case qpb::KERNEL: return rib::proto::kernel;
    case qpb::STATIC: return rib::proto::zstatic;
    case qpb::RIP: return rtprot_rip;
    case qpb::RIPNG: return rtprot_ripng;
    case qpb::OSPF: return rib::proto::ospf;
    case qpb::ISIS: return rib::proto::isis;
    case qpb::BGP: return rib::proto::bgp;
    case qpb::OTHER: return rib::proto::zebra;
    case qpb::UNKNOWN_PROTO: break;
    }
    return 0;
}

std::optional<rib::family> to_family(qpb::AddressFamily af, decode_ctx& ctx) {
    switch (af) {
    case qpb::IPV4: return rib::family::ipv4;
    case qpb::IPV6: return rib::family::ipv6;
    case qpb::UNKNOWN_AF: break;
    }
    ctx.report(reason::route_bad_family, fmt::format("protobuf address_family {}", static_cast<int>(af)));
    return std::nullopt;
}

std::optional<rib::ip6_addr> to_ip6(const qpb::Ipv6Address& a, std::string_view what, decode_ctx& ctx) {
    if (a.bytes().size() != 16) {
        ctx.report(reason::pb_bad_address, fmt::format("{} of {} bytes", what, a.bytes().size()));
        return std::nullopt;
    }
    rib::ip6_addr r;
    std::copy(a.bytes().begin(), a.bytes().end(), r.bytes.begin());
    return r;
}

rib::ip4_addr to_ip4(const qpb::Ipv4Address& a) {
    const uint32_t v = a.value();  // a number in host order: the first octet is the high byte
    return rib::ip4_addr{{static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16),
                          static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)}};
}

// Only ceil(length / 8) bytes are on the wire.
std::optional<rib::prefix> to_prefix(rib::family af, const pb::RouteKey& key, decode_ctx& ctx) {
    if (!key.has_prefix()) {
        ctx.report(reason::pb_missing_field, "RouteKey.prefix");
        return std::nullopt;
    }
    const auto& p = key.prefix();
    if (p.length() > rib::prefix::max_len(af)) {
        ctx.report(reason::route_bad_prefix_len, fmt::format("protobuf prefix /{}", p.length()));
        return std::nullopt;
    }
    const size_t want = (p.length() + 7) / 8;
    if (p.bytes().size() != want) {
        ctx.report(reason::pb_bad_address,
                   fmt::format("/{} prefix with {} bytes, not {}", p.length(), p.bytes().size(), want));
        return std::nullopt;
    }
    rib::ip_addr a;
    a.af = af;
    std::copy(p.bytes().begin(), p.bytes().end(), a.bytes.begin());
    return rib::prefix::make(a, static_cast<uint8_t>(p.length()));
}

bool has_address(const qpb::L3Address& a) { return a.has_v4() || a.has_v6(); }

// Callers check has_address() first; nullopt after reporting a bad IPv6 size.
std::optional<rib::ip_addr> to_gateway(const qpb::L3Address& a, decode_ctx& ctx) {
    if (a.has_v4())
        return rib::ip_addr(to_ip4(a.v4()));
    if (auto v6 = to_ip6(a.v6(), "nexthop address", ctx))
        return rib::ip_addr(*v6);
    return std::nullopt;
}

// A path: ifindex and/or gateway. False after reporting.
bool to_nexthop(const pb::Nexthop& in, decode_ctx& ctx, rib::nexthop& out) {
    if (in.has_if_id() && in.if_id().has_index())
        out.ifindex = in.if_id().index();
    if (in.has_address() && has_address(in.address())) {
        const auto gw = to_gateway(in.address(), ctx);
        if (!gw)
            return false;
        out.gateway = gw;
    }
    return true;
}

rib::route_type to_route_type(pb::RouteType t) {
    switch (t) {
    case pb::UNREACHABLE: return rib::route_type::unreachable;
    case pb::BLACKHOLE: return rib::route_type::blackhole;
    case pb::NORMAL:
    case pb::UNKNOWN: break;
    }
    return rib::route_type::unicast;
}

void add_route(const pb::AddRoute& m, decode_ctx& ctx, std::vector<update>& out) {
    const auto af = to_family(m.address_family(), ctx);
    if (!af)
        return;
    const auto dst = to_prefix(*af, m.key(), ctx);
    if (!dst)
        return;
    rib::route r;
    r.key.table = m.vrf_id();  // a VRF id (ifindex) in this dialect, kept as sent
    r.key.dst = *dst;
    r.type = to_route_type(m.route_type());
    r.protocol = to_rtm_protocol(m.protocol());
    for (const auto& in : m.nexthops()) {
        rib::nexthop nh;
        if (!to_nexthop(in, ctx, nh))
            return;
        r.nexthops.push_back(std::move(nh));
    }
    if (m.has_srv6_vpn_sid()) {
        rib::seg6_encap s;
        s.mode = rib::encap_mode::encap;
        const auto sid = to_ip6(m.srv6_vpn_sid(), "srv6_vpn_sid", ctx);
        if (!sid)
            return;
        s.segments.push_back(*sid);
        if (m.has_srv6_encap_source_address()) {
            const auto src = to_ip6(m.srv6_encap_source_address(), "srv6_encap_source_address", ctx);
            if (!src)
                return;
            if (!src->is_zero())
                s.source = src;
        }
        if (r.nexthops.empty())
            r.nexthops.emplace_back();  // the SID is the path even when no interface is named
        for (auto& nh : r.nexthops)
            nh.seg6 = s;
    }
    out.push_back(update{dialect::protobuf, route_upsert{std::move(r)}});
}

void delete_route(const pb::DeleteRoute& m, decode_ctx& ctx, std::vector<update>& out) {
    const auto af = to_family(m.address_family(), ctx);
    if (!af)
        return;
    const auto dst = to_prefix(*af, m.key(), ctx);
    if (!dst)
        return;
    rib::route_key key;
    key.table = m.vrf_id();
    key.dst = *dst;
    out.push_back(update{dialect::protobuf, route_delete{key}});
}

// A nexthop's parameters: its address is NH4 or NH6 by family, its interface OIF and IFNAME.
bool nexthop_params(const pb::Nexthop& nh, decode_ctx& ctx, rib::seg6local& sl) {
    if (nh.has_address() && has_address(nh.address())) {
        const auto gw = to_gateway(nh.address(), ctx);
        if (!gw)
            return false;
        if (gw->is_v4())
            sl.nh4 = gw->v4();
        else
            sl.nh6 = gw->v6();
    }
    if (nh.has_if_id()) {
        if (nh.if_id().has_index() && nh.if_id().index() != 0)
            sl.oif = nh.if_id().index();
        sl.ifname = nh.if_id().name();
    }
    return true;
}

// The oneof's field names are the behaviors' names: end_dx4 is End.DX4's, udt46 uDT46's
// (End.DT46 with NEXT-C-SID). So a behavior fpm.proto gains needs no code here.
std::string field_name_of(std::string_view rfc_name) {
    std::string n(rfc_name);
    for (char& c : n)
        c = c == '.' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return n;
}

bool behavior_of(std::string_view field, rib::seg6local& sl) {
    for (const auto& row : rib::behavior_table()) {
        if (field == field_name_of(row.name)) {
            sl.action = row.action;
            return true;
        }
        if (!row.csid_name.empty() && field == field_name_of(row.csid_name)) {
            sl.action = row.action;
            sl.flavors = rib::flavor::next_csid;
            return true;
        }
    }
    return false;
}

// Behaviour and its parameters from the oneof: each behaviour's message may carry a `nexthop`
// (Nexthop) and a `vrf_id`, the VRF's id in this dialect (kept as the table: the dialect tag
// tells the consumer). Which of them the behaviour needs is its row's. False after reporting.
bool to_seg6local(const pb::SRv6LocalSID& m, decode_ctx& ctx, rib::seg6local& sl) {
    namespace gpb = ::google::protobuf;
    const gpb::Reflection* refl = m.GetReflection();
    const gpb::FieldDescriptor* field =
        refl->GetOneofFieldDescriptor(m, pb::SRv6LocalSID::descriptor()->FindOneofByName("end_behavior"));
    if (!field) {
        ctx.report(reason::pb_missing_field, "SRv6LocalSID.end_behavior");
        return false;
    }
    if (!behavior_of(field->name(), sl)) {  // fpm.proto and the contract disagree: a build-time slip
        ctx.report(reason::pb_missing_field, fmt::format("SRv6LocalSID.{} names no behavior", field->name()));
        return false;
    }
    const gpb::Message& b = refl->GetMessage(m, field);
    const gpb::Reflection* br = b.GetReflection();
    const gpb::Descriptor* bd = b.GetDescriptor();
    if (const auto* f = bd->FindFieldByName("nexthop"); f && br->HasField(b, f))
        if (const auto* nh = gpb::DynamicCastToGenerated<pb::Nexthop>(&br->GetMessage(b, f)))
            if (!nexthop_params(*nh, ctx, sl))
                return false;
    if (const auto* f = bd->FindFieldByName("vrf_id"); f && br->HasField(b, f))
        sl.table = br->GetUInt32(b, f);
    return true;
}

void localsid(const pb::Message& msg, decode_ctx& ctx, std::vector<update>& out) {
    if (!msg.has_srv6_localsid()) {
        ctx.report(reason::pb_missing_field, "Message.srv6_localsid");
        return;
    }
    const auto& m = msg.srv6_localsid();
    const auto sid = to_ip6(m.sid(), "SRv6LocalSID.sid", ctx);
    if (!sid)
        return;
    // fpm.proto has no SID prefix length: the SID is installed as a /128, in the default VRF's
    // SID table like every local SID (deletes then find the same key).
    rib::route_key key;
    key.table = rib::main_table;
    key.dst = rib::prefix::make(rib::ip_addr(*sid), 128);
    if (msg.type() == pb::Message::DELETE_SRV6_LOCALSID) {
        out.push_back(update{dialect::protobuf, route_delete{key}});
        return;
    }
    rib::seg6local sl;
    if (m.has_sid_format()) {
        const auto& f = m.sid_format();
        // Each length in a byte, as SONiC's FORMAT carries them; their sum is the structure's check.
        for (uint32_t len : {f.locator_block_length(), f.locator_node_length(), f.function_length(), f.argument_length()})
            if (len > 128) {
                ctx.report(reason::pb_bad_address, fmt::format("SID format length {}", len));
                return;
            }
        sl.structure = rib::sid_structure{static_cast<uint8_t>(f.locator_block_length()),
                                          static_cast<uint8_t>(f.locator_node_length()),
                                          static_cast<uint8_t>(f.function_length()),
                                          static_cast<uint8_t>(f.argument_length())};
    }
    if (!to_seg6local(m, ctx, sl))
        return;
    if ((sl.flavors & rib::flavor::next_csid) && sl.structure && sl.structure->block_len) {
        const rib::csid_lengths c = rib::csid_from_structure(sl.action, *sl.structure);
        sl.lcblock_bits = c.block;
        sl.lcnode_fn_bits = c.node_fn;
    }
    // The contract's requirements and value rules, as for every dialect (an End.X/uA nexthop
    // given as IPv4 is no End.X adjacency).
    const rib::behavior_info& row = *rib::find_behavior(sl.action);
    if (!check_sid_params(row, sl, 0, ctx, reason::pb_bad_address))
        return;
    rib::route r;
    r.key = key;
    r.type = rib::route_type::unicast;
    rib::nexthop nh;
    nh.local = std::move(sl);
    r.nexthops.push_back(std::move(nh));
    out.push_back(update{dialect::protobuf, route_upsert{std::move(r)}});
}

}  // namespace

void decode_protobuf(nl::bytes payload, decode_ctx& ctx, std::vector<update>& out) {
    pb::Message msg;
    // Parse first, check required fields second, so that the two failures are told apart.
    if (payload.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
        !msg.ParsePartialFromArray(payload.data(), static_cast<int>(payload.size()))) {
        ctx.report(reason::pb_parse_failed, fmt::format("{} bytes", payload.size()));
        return;
    }
    ++ctx.stats.messages;
    ++ctx.stats.msg_types[static_cast<uint16_t>(pb_type_key | static_cast<uint16_t>(msg.type()))];
    if (!msg.IsInitialized()) {
        ctx.report(reason::pb_missing_field, msg.InitializationErrorString());
        return;
    }
    switch (msg.type()) {
    case pb::Message::ADD_ROUTE:
        if (msg.has_add_route())
            add_route(msg.add_route(), ctx, out);
        else
            ctx.report(reason::pb_missing_field, "Message.add_route");
        return;
    case pb::Message::DELETE_ROUTE:
        if (msg.has_delete_route())
            delete_route(msg.delete_route(), ctx, out);
        else
            ctx.report(reason::pb_missing_field, "Message.delete_route");
        return;
    case pb::Message::ADD_SRV6_LOCALSID:
    case pb::Message::DELETE_SRV6_LOCALSID:
        localsid(msg, ctx, out);
        return;
    case pb::Message::UNKNOWN_MSG:
        break;
    }
    ctx.report(reason::ignored_msg_type, fmt::format("protobuf message type {}", static_cast<int>(msg.type())));
}

}  // namespace fpm
