// Operator-facing names of model values, shared by the renderers and the text output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rib/model.hh"
#include "rib/rib.hh"

namespace mgmt {

// rtm_protocol as `show ip route json` names it ("kernel", "static", "bgp"); "proto N" otherwise.
std::string protocol_name(uint8_t protocol);
// vtysh's route code letter for rtm_protocol ("K", "S", "B", ...); "?" when vtysh has none.
std::string_view protocol_code(uint8_t protocol);

// FPM message type as counted in fpm::ingest_stats::msg_types: netlink and SONiC nlmsg_type,
// or 0x8000 | fpm.Message.Type for protobuf frames. "type N" when unknown.
std::string msg_type_name(uint16_t type);

// Route types: rib::route_type_name (rib/model.hh).
std::string_view resolve_state_name(rib::resolve_state s); // ok, partial, unresolved, no_paths
std::string_view encap_mode_name(rib::encap_mode m);       // RFC 8986: H.Encaps, H.Encaps.Red, ...

// The behavior as FRR shows it (End -> uN with NEXT-C-SID...) is the contract's:
// rib::behavior_display_name (rib/behaviors.hh).

// Names that came off the wire (SONiC VRF and interface names, SID list names) may hold any
// byte; proto3 strings must be UTF-8 and terminals should not get control codes. Every byte
// outside printable ASCII becomes '?'.
std::string printable(std::string_view s);

}  // namespace mgmt
