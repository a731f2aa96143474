// The SRv6 endpoint behaviors in one table, like the kernel's seg6_action_table: the
// RFC 8986 name of each behavior and which SID parameters it needs or may carry. Decoders
// validate against it; the CLI and logs print the names from it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rib/model.hh"

namespace rib {

// The parameters of a local SID, one bit per field of rib::seg6local that a behavior may use.
namespace sid_param {
constexpr uint16_t nh4 = 1u << 0;
constexpr uint16_t nh6 = 1u << 1;
constexpr uint16_t table = 1u << 2;      // SEG6_LOCAL_TABLE
constexpr uint16_t vrftable = 1u << 3;   // SEG6_LOCAL_VRFTABLE
constexpr uint16_t oif = 1u << 4;
constexpr uint16_t srh = 1u << 5;
constexpr uint16_t flavors = 1u << 6;    // flavor bits and the NEXT-C-SID lengths
constexpr uint16_t bpf = 1u << 7;        // End.BPF program: on the wire only, srv6d stores none
constexpr uint16_t vrf_name = 1u << 8;   // SONiC/protobuf name the VRF instead of a table
constexpr uint16_t ifname = 1u << 9;     // SONiC End.X/uA interface
constexpr uint16_t structure = 1u << 10; // SONiC FORMAT nest, protobuf SRv6SIDFormat
}  // namespace sid_param

struct behavior_info {
    behavior action;
    std::string_view name;             // RFC 8986 spelling: "End.DT46"
    // Each non-zero entry is satisfied by ANY of its bits: {table | vrftable} = "a table".
    std::array<uint16_t, 2> required;
    uint16_t optional;                 // accepted but not needed
    bool netlink;                      // has a seg6local encoding (the kernel implements it)

    uint16_t allowed() const { return static_cast<uint16_t>(required[0] | required[1] | optional); }
    // The first requirement `present` (sid_param bits) leaves unmet, or 0 when all are met.
    uint16_t missing(uint16_t present) const;
};

// Every rib::behavior, in enum order.
std::span<const behavior_info> behavior_table();
// nullptr for a number outside the enum (the wire carries a raw u32).
const behavior_info* find_behavior(uint32_t action);

std::string_view behavior_name(behavior b);  // "End.X"; "unknown" outside the table
std::optional<behavior> behavior_from_name(std::string_view name);  // exact RFC spelling

// Flavor bits srv6d knows (rib::flavor); anything else is a flavor we cannot honour.
constexpr uint32_t known_flavors = flavor::psp | flavor::usp | flavor::usd | flavor::next_csid;
std::string_view flavor_name(uint32_t bit);  // "psp", "usp", "usd", "next-csid"; "" otherwise
std::string flavors_to_string(uint32_t mask); // "psp,next-csid"; unknown bits as hex; "" for 0
std::string sid_params_to_string(uint16_t params);  // "table|vrftable", for reports

}  // namespace rib
