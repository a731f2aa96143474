// Human output of srv6ctl, built from the API's messages (not from the RIB), so that what the
// operator reads is exactly what --json carries. Modelled on vtysh's `show ip route`.
#pragma once

#include <string>
#include <vector>

#include "mgmt/proto.hh"

namespace mgmt {

std::string format_fpm(const pb::FpmStatus& s);
std::string format_routes(const pb::RouteTables& t);
std::string format_nexthops(const pb::NexthopTable& t);
std::string format_sids(const pb::SidTable& t);
std::string format_vrfs(const pb::VrfTable& t);
std::string format_encap_source(const pb::EncapSource& e);
std::string format_counters(const pb::Counters& c);
std::string format_neighbors(const pb::NeighborTable& t);
std::string format_l2vpn(const pb::L2vpnTable& t);
std::string format_memory(const pb::Memory& m);
std::string format_route_lookup(const pb::RouteLookup& r);
// `show version`, `show running-config`, `show segment-routing srv6 locator`.
std::string format_version(const pb::Version& v);
std::string format_running_config(const pb::RunningConfig& c);
std::string format_locators(const pb::LocatorTable& t);
// `srv6ctl trace`: one numbered block per packet, as VPP's `show trace`.
std::string format_trace(const pb::TraceRecords& t);
// Whichever result the response carries; the error text when it carries an error.
std::string format_response(const pb::Response& r);

// One forwarding path: "via 10.0.0.2, ifindex 3, weight 1, seg6 encap H.Encaps segs fc00::1".
std::string format_path(const pb::Nexthop& nh);
// The parameters of an endpoint behavior: "vrftable 10", "nh6 fe80::1, oif 3"; "" when none.
std::string format_seg6local_context(const pb::Seg6Local& l);
// "seg6local End.DT4 vrftable 10" as shown on a path.
std::string format_seg6local(const pb::Seg6Local& l);
// "H.Encaps segs fc00::1,fc00::2 src fc00::9".
std::string format_seg6(const pb::Seg6Encap& e);
// Rows as columns two spaces apart, left-aligned, the first row (the header) underlined with
// dashes; the last column is not padded. Every row has the header's columns.
std::string format_columns(const std::vector<std::vector<std::string>>& rows);
// "00:01:02" below a day, "3d04h05m" above, as vtysh prints uptimes.
std::string format_duration(uint64_t seconds);

}  // namespace mgmt
