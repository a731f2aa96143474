// The SRv6 behavior contract, like the kernel's seg6_action_table: one row per RFC 8986 /
// RFC 9800 endpoint behavior srv6d knows, saying which SID parameters it needs or may carry,
// which flavors it takes, what it decapsulates, whether it binds a VRF and through which
// attribute, where its packets go, and which datapath handler runs it (or none: then the SID is
// refused when compiled, never installed to drop). The FPM decoders, the [sids] parser, the
// compiler, the worker, srv6ctl and docs/dataplane-endpoint.md all read this table.
//
// The table itself is constexpr and header-only, so that datapath code (which links DPDK
// alone) can read it; the string helpers at the end live in behaviors.cc.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rib/model.hh"

namespace rib {

// The parameters of a local SID, one bit per field of rib::seg6local that a behavior may use;
// rib/sid_params.hh has a row for each (its name, value check, printing).
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
constexpr uint16_t all = (1u << 11) - 1;   // rib/sid_params.cc has one row for each
}  // namespace sid_param

// The worker code that executes a behavior (forward/datapath/srv6_endpoint.cc switches on it).
enum class dp_handler : uint8_t {
    none,         // no datapath code: a SID with this behavior is refused at compile time
    next_segment, // RFC 8986 §4.1-4.3 (End, End.X, End.T): next SID (SRH or NEXT-C-SID), flavors
    decap,        // RFC 8986 §4.4-4.9 (End.DX*, End.DT*): decapsulate at the end of the list
    b6_encaps,    // RFC 8986 §4.13-4.14 (End.B6.Encaps(.Red)): End, then push the SID's policy
};
inline constexpr size_t dp_handler_count = 4;

// Inner families a behavior decapsulates (for End/End.X/End.T: with the USD flavor).
namespace decap {
constexpr uint8_t v4 = 1u << 0;
constexpr uint8_t v6 = 1u << 1;
constexpr uint8_t eth = 1u << 2;  // End.DX2: an Ethernet frame (next header 143), sent out unchanged
}  // namespace decap

// Which attribute names the table of the VRF a behavior binds, as FRR sends it (the kernel
// takes either for End.DT6; End.T only TABLE; End.DT4/DT46 only VRFTABLE).
enum class vrf_attr : uint8_t { none, table, vrftable };

// NEXT-C-SID Locator-Block and Locator-Node+Function lengths (RFC 9800 §4.1: LBL, LNFL).
struct csid_lengths {
    uint8_t block = 0;
    uint8_t node_fn = 0;
};
// The kernel's defaults when the flavor comes without lengths (SEG6_LOCAL_LCBLOCK_DBITS,
// SEG6_LOCAL_LCNODE_FN_DBITS): F3216.
inline constexpr csid_lengths csid_default{32, 16};

// The one NEXT-C-SID length rule, the kernel's (seg6_local.c, next_csid_chk_*): each length a
// non-zero multiple of 8, the two together within 128 bits. The FPM decoders, the config parser
// and the contract check all ask it.
constexpr bool valid_csid_bits(unsigned bits) { return bits > 0 && bits <= 128 && bits % 8 == 0; }
constexpr bool valid_csid(unsigned block, unsigned node_fn) {
    return valid_csid_bits(block) && valid_csid_bits(node_fn) && block + node_fn <= 128;
}
static_assert(valid_csid(csid_default.block, csid_default.node_fn));

struct behavior_info {
    behavior action;
    std::string_view name;       // RFC 8986 spelling: "End.DT46"
    std::string_view csid_name;  // with the NEXT-C-SID flavor (RFC 9800, FRR): "uDT46"; "" = none
    std::string_view rfc;        // where it is defined
    // Each non-zero entry is satisfied by ANY of its bits: {table | vrftable} = "a table".
    std::array<uint16_t, 2> required;
    uint16_t optional;           // accepted but not needed
    uint32_t flavors;            // rib::flavor bits it takes (RFC 8986 §4.16, RFC 9800 §4)
    uint8_t decap;               // decap:: families
    vrf_attr vrf;                // binds a VRF (End.T looks up in it, End.DT* decapsulate into it)
    uint16_t adjacency;          // the sid_param naming its L3 adjacency (nh4/nh6), or its port (oif:
                                 // End.DX2 sends the frame there unchanged); 0: a FIB lookup
    dp_handler handler;
    bool netlink;                // has a seg6local encoding (the kernel implements it)
    csid_lengths csid;           // NEXT-C-SID defaults; {0, 0} when it takes no NEXT-C-SID

    constexpr uint16_t allowed() const { return static_cast<uint16_t>(required[0] | required[1] | optional); }
    // The first requirement `present` (sid_param bits) leaves unmet, or 0 when all are met.
    constexpr uint16_t missing(uint16_t present) const {
        for (uint16_t need : required)
            if (need && !(need & present))
                return need;
        return 0;
    }
    constexpr bool binds_vrf() const { return vrf != vrf_attr::none; }
};

namespace detail {
using namespace sid_param;
namespace f = flavor;

// Any SID may carry flavors and its structure; which flavors apply is the row's `flavors`.
constexpr uint16_t any_sid = flavors | structure;
constexpr uint16_t a_table = table | vrftable | vrf_name;  // FRR: DT6 with TABLE, DT4/DT46 with VRFTABLE
constexpr uint32_t rfc8986_flavors = f::psp | f::usp | f::usd;
constexpr uint8_t v46 = decap::v4 | decap::v6;
constexpr csid_lengths no_csid{};

// Kernel action numbering (linux/seg6_local.h); End.BM/S/AS/AM exist only as numbers there.
// NEXT-C-SID on End.DX*/DT* (uDX/uDT) changes nothing: such a SID ends its container.
inline constexpr std::array<behavior_info, 16> rows = {{
    {behavior::end, "End", "uN", "RFC 8986 §4.1", {0, 0}, any_sid, rfc8986_flavors | f::next_csid, v46,
     vrf_attr::none, 0, dp_handler::next_segment, true, csid_default},
    {behavior::end_x, "End.X", "uA", "RFC 8986 §4.2", {nh6, 0}, oif | ifname | any_sid, rfc8986_flavors | f::next_csid,
     v46, vrf_attr::none, nh6, dp_handler::next_segment, true, csid_default},
    {behavior::end_t, "End.T", "", "RFC 8986 §4.3", {table | vrf_name, 0}, any_sid, rfc8986_flavors | f::next_csid,
     v46, vrf_attr::table, 0, dp_handler::next_segment, true, csid_default},
    {behavior::end_dx2, "End.DX2", "uDX2", "RFC 8986 §4.9", {oif | ifname, 0}, any_sid, f::next_csid, decap::eth,
     vrf_attr::none, oif, dp_handler::decap, true, csid_default},
    {behavior::end_dx6, "End.DX6", "uDX6", "RFC 8986 §4.4", {nh6, 0}, oif | ifname | any_sid, f::next_csid, decap::v6,
     vrf_attr::none, nh6, dp_handler::decap, true, csid_default},
    {behavior::end_dx4, "End.DX4", "uDX4", "RFC 8986 §4.5", {nh4, 0}, oif | ifname | any_sid, f::next_csid, decap::v4,
     vrf_attr::none, nh4, dp_handler::decap, true, csid_default},
    {behavior::end_dt6, "End.DT6", "uDT6", "RFC 8986 §4.6", {a_table, 0}, any_sid, f::next_csid, decap::v6,
     vrf_attr::table, 0, dp_handler::decap, true, csid_default},
    {behavior::end_dt4, "End.DT4", "uDT4", "RFC 8986 §4.7", {a_table, 0}, any_sid, f::next_csid, decap::v4,
     vrf_attr::vrftable, 0, dp_handler::decap, true, csid_default},
    {behavior::end_b6, "End.B6", "", "draft-filsfils-spring-srv6-net-pgm-insertion", {srh, 0}, any_sid, 0, 0, vrf_attr::none, 0,
     dp_handler::none, true, no_csid},
    {behavior::end_b6_encaps, "End.B6.Encaps", "", "RFC 8986 §4.13, .Red §4.14", {srh, 0}, any_sid, f::next_csid, 0,
     vrf_attr::none, 0, dp_handler::b6_encaps, true, csid_default},
    {behavior::end_bm, "End.BM", "", "RFC 8986 §4.15", {0, 0}, any_sid, f::next_csid, 0, vrf_attr::none, 0,
     dp_handler::none, false, csid_default},
    {behavior::end_s, "End.S", "", "draft-ietf-spring-srv6-network-programming-05", {0, 0}, any_sid, 0, 0, vrf_attr::none, 0,
     dp_handler::none, false, no_csid},
    {behavior::end_as, "End.AS", "", "draft-ietf-spring-sr-service-programming", {0, 0}, any_sid, 0, 0, vrf_attr::none, 0,
     dp_handler::none, false, no_csid},
    {behavior::end_am, "End.AM", "", "draft-ietf-spring-sr-service-programming", {0, 0}, any_sid, 0, 0,
     vrf_attr::none, 0, dp_handler::none, false, no_csid},
    {behavior::end_bpf, "End.BPF", "", "Linux seg6local", {bpf, 0}, any_sid, 0, 0, vrf_attr::none, 0,
     dp_handler::none, true, no_csid},
    {behavior::end_dt46, "End.DT46", "uDT46", "RFC 8986 §4.8", {a_table, 0}, any_sid, f::next_csid, v46,
     vrf_attr::vrftable, 0, dp_handler::decap, true, csid_default},
}};

constexpr bool in_enum_order() {
    for (size_t i = 0; i < rows.size(); ++i)
        if (static_cast<size_t>(rows[i].action) != i + 1)
            return false;
    return true;
}
static_assert(in_enum_order(), "find_behavior indexes the table by action - 1");

// Rows are self-consistent: a handler needs what it reads.
constexpr bool consistent() {
    for (const auto& r : rows) {
        if (r.handler == dp_handler::decap && r.decap == 0)
            return false;
        if ((r.flavors & f::next_csid) && (r.csid.block == 0 || r.csid.node_fn == 0))
            return false;
        if (r.adjacency && !(r.allowed() & r.adjacency))
            return false;
        if (r.binds_vrf() && !(r.allowed() & a_table))
            return false;
    }
    return true;
}
static_assert(consistent(), "a row's handler, flavors, adjacency or VRF binding contradicts its parameters");
// A row that takes NEXT-C-SID has defaults the rule accepts.
constexpr bool csid_defaults_valid() {
    for (const auto& r : rows)
        if ((r.flavors & flavor::next_csid) && !valid_csid(r.csid.block, r.csid.node_fn))
            return false;
    return true;
}
static_assert(csid_defaults_valid(), "a NEXT-C-SID row's default lengths break the NEXT-C-SID rule");
}  // namespace detail

// Every rib::behavior, in enum order.
constexpr std::span<const behavior_info> behavior_table() { return detail::rows; }
// nullptr for a number outside the enum (the wire carries a raw u32).
constexpr const behavior_info* find_behavior(uint32_t action) {
    if (action == 0 || action > detail::rows.size())
        return nullptr;
    return &detail::rows[action - 1];
}
constexpr const behavior_info* find_behavior(behavior b) { return find_behavior(static_cast<uint32_t>(b)); }

// Flavor bits srv6d knows (rib::flavor); anything else is a flavor we cannot honour.
constexpr uint32_t known_flavors = flavor::psp | flavor::usp | flavor::usd | flavor::next_csid;

// The NEXT-C-SID lengths a SID runs with: its own, else the behavior's defaults.
constexpr csid_lengths csid_of(const seg6local& l) {
    const behavior_info* b = find_behavior(l.action);
    const csid_lengths d = b ? b->csid : csid_lengths{};
    return {l.lcblock_bits.value_or(d.block), l.lcnode_fn_bits.value_or(d.node_fn)};
}

// NEXT-C-SID lengths from a SID structure (SONiC FORMAT, protobuf SRv6SIDFormat): a uN C-SID is
// the node alone; every other flavored behavior (uA, uDT...) carries its function after it.
constexpr csid_lengths csid_from_structure(behavior b, const sid_structure& s) {
    return {s.block_len, static_cast<uint8_t>(s.node_len + (b == behavior::end ? 0 : s.func_len))};
}

// Whether the dataplane can serve a SID, as the contract says (the kernel's build_state checks):
// a behavior without a handler, a flavor its row does not take, or NEXT-C-SID lengths the
// datapath cannot apply. The reason is in words, for `srv6ctl show sids` and the log.
enum class contract_refusal : uint8_t { none, no_handler, flavor };
struct contract_check {
    contract_refusal why = contract_refusal::none;
    std::string reason;
    bool ok() const { return why == contract_refusal::none; }
};
contract_check check_contract(const seg6local& l);

std::string_view behavior_name(behavior b);  // "End.X"; "unknown" outside the table
std::optional<behavior> behavior_from_name(std::string_view name);  // exact RFC spelling
// The RFC 9800 name with NEXT-C-SID (uN, uA, uDT46...), else the RFC 8986 one.
std::string_view behavior_display_name(behavior b, uint32_t flavors);

std::string_view flavor_name(uint32_t bit);  // "psp", "usp", "usd", "next-csid"; "" otherwise
std::optional<uint32_t> flavor_from_name(std::string_view name);  // its rib::flavor bit
std::string flavors_to_string(uint32_t mask); // "psp,next-csid"; unknown bits as hex; "" for 0
std::string_view name(dp_handler h);                // "next_segment"
std::string decap_to_string(uint8_t families);      // "IPv4,IPv6"

// The contract as a Markdown table, one line per row; docs/dataplane-endpoint.md carries it
// verbatim between its behavior-table markers (a unit test compares them).
std::string behavior_table_markdown();

}  // namespace rib
