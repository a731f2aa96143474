#include "rib/behaviors.hh"

#include <algorithm>

#include <fmt/format.h>

namespace rib {
namespace {

using namespace sid_param;

// Any SID may carry flavors and its structure; whether a flavor applies is the dataplane's call
// (FRR sends NEXT-C-SID on uDT/uDX SIDs too, where the kernel ignores it).
constexpr uint16_t any_sid = flavors | structure;
constexpr uint16_t a_table = table | vrftable | vrf_name;  // FRR sends DT6 with TABLE, DT4/DT46 with VRFTABLE

// Kernel action numbering (linux/seg6_local.h); End.BM/S/AS/AM exist only as numbers there.
constexpr std::array<behavior_info, 16> table_ = {{
    {behavior::end, "End", {0, 0}, any_sid, true},
    {behavior::end_x, "End.X", {nh6, 0}, oif | ifname | any_sid, true},
    {behavior::end_t, "End.T", {table | vrf_name, 0}, any_sid, true},
    {behavior::end_dx2, "End.DX2", {oif | ifname, 0}, any_sid, true},
    {behavior::end_dx6, "End.DX6", {nh6, 0}, oif | ifname | any_sid, true},
    {behavior::end_dx4, "End.DX4", {nh4, 0}, oif | ifname | any_sid, true},
    {behavior::end_dt6, "End.DT6", {a_table, 0}, any_sid, true},
    {behavior::end_dt4, "End.DT4", {a_table, 0}, any_sid, true},
    {behavior::end_b6, "End.B6", {srh, 0}, any_sid, true},
    {behavior::end_b6_encaps, "End.B6.Encaps", {srh, 0}, any_sid, true},
    {behavior::end_bm, "End.BM", {0, 0}, any_sid, false},
    {behavior::end_s, "End.S", {0, 0}, any_sid, false},
    {behavior::end_as, "End.AS", {0, 0}, any_sid, false},
    {behavior::end_am, "End.AM", {0, 0}, any_sid, false},
    {behavior::end_bpf, "End.BPF", {bpf, 0}, any_sid, true},
    {behavior::end_dt46, "End.DT46", {a_table, 0}, any_sid, true},
}};

constexpr bool table_in_enum_order() {
    for (size_t i = 0; i < table_.size(); ++i)
        if (static_cast<size_t>(table_[i].action) != i + 1)
            return false;
    return true;
}
static_assert(table_in_enum_order(), "find_behavior indexes the table by action - 1");

struct flavor_entry {
    uint32_t bit;
    std::string_view name;
};
constexpr std::array<flavor_entry, 4> flavors_ = {{
    {flavor::psp, "psp"},
    {flavor::usp, "usp"},
    {flavor::usd, "usd"},
    {flavor::next_csid, "next-csid"},
}};

struct param_entry {
    uint16_t bit;
    std::string_view name;
};
constexpr std::array<param_entry, 11> params_ = {{
    {nh4, "nh4"}, {nh6, "nh6"}, {table, "table"}, {vrftable, "vrftable"}, {oif, "oif"},
    {srh, "srh"}, {flavors, "flavors"}, {bpf, "bpf"}, {vrf_name, "vrf-name"}, {ifname, "ifname"},
    {structure, "structure"},
}};

bool iequals(std::string_view a, std::string_view b) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) { return lower(x) == lower(y); });
}

}  // namespace

uint16_t behavior_info::missing(uint16_t present) const {
    for (uint16_t need : required)
        if (need && !(need & present))
            return need;
    return 0;
}

std::span<const behavior_info> behavior_table() { return table_; }

const behavior_info* find_behavior(uint32_t action) {
    if (action == 0 || action > table_.size())
        return nullptr;
    return &table_[action - 1];
}

std::string_view behavior_name(behavior b) {
    const auto* info = find_behavior(static_cast<uint32_t>(b));
    return info ? info->name : "unknown";
}

std::optional<behavior> behavior_from_name(std::string_view name) {
    for (const auto& info : table_)
        if (iequals(info.name, name))
            return info.action;
    return std::nullopt;
}

std::string_view flavor_name(uint32_t bit) {
    for (const auto& f : flavors_)
        if (f.bit == bit)
            return f.name;
    return {};
}

std::string flavors_to_string(uint32_t mask) {
    std::string out;
    auto add = [&out](std::string_view s) {
        if (!out.empty())
            out += ',';
        out += s;
    };
    for (const auto& f : flavors_)
        if (mask & f.bit)
            add(f.name);
    if (const uint32_t rest = mask & ~known_flavors)
        add(fmt::format("{:#x}", rest));
    return out;
}

std::string sid_params_to_string(uint16_t p) {
    std::string out;
    for (const auto& e : params_) {
        if (!(p & e.bit))
            continue;
        if (!out.empty())
            out += '|';
        out += e.name;
    }
    return out;
}

}  // namespace rib
