// The parameters of a local SID, one row each, like the kernel's seg6_action_params (parse, put,
// cmp per attribute): what the parameter is called, whether a SID holds it, the check of its
// value, how it is dropped and how it is printed in [sids] syntax. The behavior contract
// (rib/behaviors.hh) says which parameters a behavior requires and allows; every parser (netlink,
// SONiC, protobuf, the [sids] lines) maps its own attributes to these parameters and asks
// check_params(), so that a SID without what its behavior needs is refused with one reason
// text whichever way it came: "End.DX4 needs an IPv4 next hop (nh4)".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rib/behaviors.hh"
#include "rib/model.hh"

namespace rib {

struct param_info {
    uint16_t bit;           // sid_param::
    std::string_view name;  // in reasons, docs and [sids] lines: "nh4", "vrf", "segs"
    std::string_view noun;  // what it gives the behavior: "an IPv4 next hop"
    bool (*held)(const seg6local&);
    void (*drop)(seg6local&);
    // What is wrong with a held value, in words; nullptr: any value will do.
    std::optional<std::string> (*check)(const behavior_info&, const seg6local&);
    // Appends " KEYWORD VALUE" in [sids] syntax; nullptr: a [sids] line cannot state it.
    void (*print)(const seg6local&, std::string&);
};

// Every parameter, in the order a [sids] line prints them.
std::span<const param_info> param_table();
const param_info* find_param(uint16_t bit);  // nullptr for a bit that is not one parameter

// The sid_param bits a SID holds (End.BPF's program is on the wire only: never held).
uint16_t present_params(const seg6local& l);

// "table|vrftable": the names of `params`, for tables and logs.
std::string sid_params_to_string(uint16_t params);

enum class param_fault : uint8_t { none, missing, bad_value };
struct param_check {
    param_fault fault = param_fault::none;
    uint16_t params = 0;  // the requirement left unmet, or the parameter whose value is wrong
    std::string reason;   // "End.DX4 needs an IPv4 next hop (nh4)"
    bool ok() const { return fault == param_fault::none; }
};

// A SID's parameters against its row: first each held value the row allows (its parameter's
// check), then the row's requirements. `present` adds what the wire carried but the model does
// not hold (End.BPF's program). Parameters the row does not take are no fault here: each
// parser has its policy for them (unused_params).
param_check check_params(const behavior_info& row, const seg6local& l, uint16_t present = 0);

// Held parameters the row does not take, the words for them ("End does not take vrf"), and
// dropping them, so that the model holds only what applies.
uint16_t unused_params(const behavior_info& row, const seg6local& l, uint16_t present = 0);
std::string unused_text(const behavior_info& row, uint16_t params);
void drop_params(seg6local& l, uint16_t params);

// The SID's parameters as a [sids] line states them: " vrf red flavors next-csid lblen 32 nflen 16".
std::string print_params(const seg6local& l);

// The NEXT-C-SID rule (rib::valid_csid) in words when `c` breaks it.
std::optional<std::string> csid_fault(csid_lengths c);
// "End.DT4 does not take flavor psp": the reason for flavor bits a row does not take.
std::string flavor_refusal(const behavior_info& row, uint32_t bits);

}  // namespace rib
