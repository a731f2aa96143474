#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgmt/text.hh"

namespace mgmt {
namespace {

using row = std::vector<std::string>;

std::string structure_text(const pb::Seg6Local& l) {
    if (l.has_structure()) {
        const auto& s = l.structure();
        return fmt::format("block {} node {} func {} arg {}", s.block_len(), s.node_len(), s.func_len(),
                           s.arg_len());
    }
    if (l.has_lcblock_bits() || l.has_lcnode_fn_bits())
        return fmt::format("lcblock {} lcnode-fn {}", l.has_lcblock_bits() ? fmt::to_string(l.lcblock_bits()) : "-",
                           l.has_lcnode_fn_bits() ? fmt::to_string(l.lcnode_fn_bits()) : "-");
    return "-";
}

std::string context_text(const pb::LocalSid& s) {
    std::string ctx = format_seg6local_context(s.seg6local());
    // Behaviors that send to a neighbour go out of the SID route's own interface when the
    // behavior does not name one (End.X before FRR 10.6).
    const bool to_neighbour = s.seg6local().has_nh4() || s.seg6local().has_nh6();
    if (to_neighbour && !s.seg6local().has_oif() && s.ifindex() != 0)
        ctx += s.has_ifname() ? fmt::format(", dev {} (ifindex {})", s.ifname(), s.ifindex())
                              : fmt::format(", ifindex {}", s.ifindex());
    return ctx.empty() ? "-" : ctx;
}

// "active", or "refused: table 100 is not bound to any VRF".
std::string state_text(const pb::LocalSid& s) {
    if (s.state().empty())
        return "-";  // an srv6d without SID binding
    return s.reason().empty() ? s.state() : fmt::format("{}: {}", s.state(), s.reason());
}

}  // namespace

std::string format_sids(const pb::SidTable& t) {
    if (t.sids_size() == 0)
        return "No local SIDs.\n";
    // The counters' columns only when the dataplane counts (srv6d with a dataplane).
    const bool counted = std::any_of(t.sids().begin(), t.sids().end(), [](const pb::LocalSid& s) { return s.has_packets(); });
    std::vector<row> rows;
    rows.push_back({"SID", "Behavior", "Context", "VRF", "Flavors", "Protocol", "Origin", "Structure"});
    if (counted)
        rows.back().insert(rows.back().end(), {"Packets", "Bytes"});
    rows.back().push_back("State");
    for (const auto& s : t.sids()) {
        const auto& l = s.seg6local();
        rows.push_back({s.prefix(), l.behavior(), context_text(s), s.has_vrf() ? s.vrf() : "-",
                        l.flavors_size() ? fmt::format("{}", fmt::join(l.flavors(), ",")) : "-",
                        s.protocol_name(), s.origin().empty() ? "-" : s.origin(), structure_text(l)});
        if (counted)
            rows.back().insert(rows.back().end(), {s.has_packets() ? fmt::to_string(s.packets()) : "-",
                                                   s.has_bytes() ? fmt::to_string(s.bytes()) : "-"});
        rows.back().push_back(state_text(s));
    }
    std::string out = format_columns(rows);
    std::string counts;
    for (const auto& c : t.refusals())
        if (c.now() || c.total())
            counts += fmt::format("{}{} {}/{}", counts.empty() ? "" : ", ", c.name(), c.now(), c.total());
    if (!counts.empty())
        out += fmt::format("\nRefused SIDs (now/since start): {}\n", counts);
    return out;
}

}  // namespace mgmt
