// A small hand-built RIB covering each display case once: NHG singletons and groups, a forward
// reference (partial), an unknown id (unresolved), blackhole, inline multipath with labels,
// headend seg6, local SIDs with and without NEXT-C-SID, a second table.
#pragma once

#include <string_view>

#include "rib/addr.hh"
#include "rib/rib.hh"

namespace mgmt::testing {

inline rib::ip_addr addr(std::string_view s) { return *rib::parse_addr(s); }
inline rib::ip6_addr addr6(std::string_view s) { return *rib::parse_ip6(s); }
inline rib::prefix pfx(std::string_view s) { return *rib::parse_prefix(s); }

inline rib::route make_route(rib::table_id table, std::string_view dst, uint8_t protocol) {
    rib::route r;
    r.key.table = table;
    r.key.dst = pfx(dst);
    r.protocol = protocol;
    return r;
}

inline rib::nexthop via(std::string_view gw, uint32_t ifindex) {
    rib::nexthop nh;
    nh.gateway = addr(gw);
    nh.ifindex = ifindex;
    return nh;
}

inline rib::nexthop_object singleton(uint32_t id, uint8_t protocol, rib::nexthop path) {
    rib::nexthop_object o;
    o.id = id;
    o.protocol = protocol;
    o.path = std::move(path);
    return o;
}

inline void fill_sample(rib::store& rib) {
    // Not `using namespace rib`: it would make `rib` name both the namespace and the class.
    using rib::behavior, rib::encap_mode, rib::main_table, rib::route_type, rib::seg6_encap, rib::seg6local;
    namespace proto = rib::proto;
    namespace flavor = rib::flavor;
    // --- nexthop objects
    rib.upsert_nexthop(singleton(12, proto::zstatic, via("10.0.0.2", 3)));
    rib::nexthop encap = via("fe80::1", 5);
    encap.seg6 = seg6_encap{encap_mode::encap, {addr6("fc00:0:2:e000::")}, std::nullopt, {}};
    rib.upsert_nexthop(singleton(13, proto::bgp, encap));
    rib::nexthop_object group;
    group.id = 40;
    group.protocol = proto::bgp;
    group.group = {{12, 1}, {14, 2}};  // 14 not received (yet)
    rib.upsert_nexthop(group);
    rib::nexthop un;
    un.ifindex = 9;
    seg6local end;
    end.action = behavior::end;
    end.flavors = flavor::next_csid;
    end.lcblock_bits = 32;
    end.lcnode_fn_bits = 16;
    un.local = end;
    rib.upsert_nexthop(singleton(50, proto::zstatic, un));

    // --- table 254
    auto r = make_route(main_table, "10.1.0.0/24", proto::zstatic);
    r.nh_id = 12;
    rib.upsert_route(r);
    r = make_route(main_table, "10.2.0.0/24", proto::bgp);
    r.nh_id = 13;
    r.prefsrc = addr("10.0.0.1");
    rib.upsert_route(r);
    r = make_route(main_table, "10.3.0.0/24", proto::bgp);
    r.nh_id = 40;
    rib.upsert_route(r);
    r = make_route(main_table, "10.9.0.0/24", proto::bgp);
    r.nh_id = 42;  // never sent
    rib.upsert_route(r);
    r = make_route(main_table, "192.0.2.0/24", proto::zstatic);
    r.type = route_type::blackhole;
    rib.upsert_route(r);
    r = make_route(main_table, "203.0.113.0/24", proto::bgp);  // inline multipath, MPLS
    auto a = via("10.0.0.2", 3);
    a.mpls_labels = {16, 17};
    auto b = via("10.0.1.2", 4);
    b.weight = 3;
    b.onlink = true;
    r.nexthops = {a, b};
    rib.upsert_route(r);
    r = make_route(main_table, "fc00:0:1::/48", proto::zstatic);  // uN through object 50
    r.nh_id = 50;
    rib.upsert_route(r);
    r = make_route(main_table, "fc00:0:1:e000::/128", proto::bgp);  // inline End.DT46
    rib::nexthop dt;
    dt.ifindex = 9;
    seg6local dt46;
    dt46.action = behavior::end_dt46;
    dt46.vrftable = 10;
    dt.local = dt46;
    r.nexthops = {dt};
    rib.upsert_route(r);
    r = make_route(main_table, "fc00:0:1::2/128", proto::kernel);  // End.X, FRR 8.4 style
    rib::nexthop x;
    x.ifindex = 2;
    seg6local endx;
    endx.action = behavior::end_x;
    endx.nh6 = addr6("fc00:12::2");
    endx.flavors = flavor::psp;
    x.local = endx;
    r.nexthops = {x};
    rib.upsert_route(r);

    // --- table 10
    r = make_route(10, "10.10.0.0/24", proto::kernel);
    rib::nexthop connected;
    connected.ifindex = 7;
    r.nexthops = {connected};
    rib.upsert_route(r);
}

}  // namespace mgmt::testing
