#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgmt/text.hh"

namespace mgmt {
namespace {

// vtysh `show nexthop-group rib` layout: an "ID:" line, attributes indented by 5, paths by 11.
void format_object(const pb::NexthopObject& o, std::string& out) {
    out += fmt::format("ID: {} ({})\n", o.id(), o.protocol_name());
    out += fmt::format("     Used by: {} route{}\n", o.used_by(), o.used_by() == 1 ? "" : "s");
    if (o.group()) {
        std::vector<std::string> ids;
        for (const auto& m : o.members())
            ids.push_back(fmt::format("({})", m.id()));
        out += fmt::format("     Depends: {}{}\n", fmt::join(ids, " "), o.resilient() ? ", resilient" : "");
        for (const auto& m : o.members())
            out += fmt::format("           nhid {}, weight {}{}\n", m.id(), m.weight(),
                               m.known() ? "" : " (not received)");
    }
    if (o.blackhole())
        out += "           blackhole\n";
    if (o.has_path())
        out += "           " + format_path(o.path()) + "\n";
}

}  // namespace

std::string format_nexthops(const pb::NexthopTable& t) {
    std::string out;
    for (const auto& o : t.nexthops())
        format_object(o, out);
    if (t.pic_contexts_size() > 0) {
        out += out.empty() ? "PIC contexts:\n" : "\nPIC contexts:\n";
        for (const auto& o : t.pic_contexts())
            format_object(o, out);
    }
    if (t.sidlists_size() > 0) {
        out += out.empty() ? "SID lists:\n" : "\nSID lists:\n";
        for (const auto& s : t.sidlists())
            out += fmt::format("{}: {}\n", s.name(), fmt::join(s.segments(), ", "));
    }
    return out.empty() ? "No nexthop objects, PIC contexts or SID lists.\n" : out;
}

}  // namespace mgmt
