// Interface names beside the ifindexes of an answer (vtysh and grcli show names): filled in
// after rendering, from the daemon's name reader, so the renderers stay pure reads of the RIB.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "mgmt/proto.hh"

namespace mgmt {

// ifindex -> name; "" when unknown (the field is then left out).
using ifname_reader = std::function<std::string(uint32_t)>;

void name_interfaces(pb::RouteTables& t, const ifname_reader& name);
void name_interfaces(pb::NexthopTable& t, const ifname_reader& name);
void name_interfaces(pb::SidTable& t, const ifname_reader& name);

}  // namespace mgmt
