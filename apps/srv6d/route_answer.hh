// `srv6ctl show route ADDR [vrf NAME]`: the compiled tables' answer (fib::lookup_route) in the
// management protocol's words, with interface names beside the ifindexes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "fib/control/compiler.hh"
#include "mgmt/proto.hh"
#include "rib/rib.hh"
#include "vrf/registry.hh"

namespace srv6d {

struct interface_names {
    // The kernel's name of an ifindex (empty: unknown).
    std::function<std::string(uint32_t)> kernel;
    // srv6d's port whose kernel interface it is (nullopt: none).
    std::function<std::optional<std::string>(uint32_t)> port;
};

// Fills resp.route(), or resp.error() for an unparsable address or an unknown/inactive VRF.
void answer_show_route(const ::mgmt::pb::ShowRoute& req, const fib::compiler& c, const vrf::registry& reg,
                       const rib::rib& r, const interface_names& names, ::mgmt::pb::Response& resp);

}  // namespace srv6d
