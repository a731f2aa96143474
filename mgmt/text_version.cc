#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgmt/text.hh"

namespace mgmt {

std::string format_version(const pb::Version& v) {
    std::string out = fmt::format("srv6d {}\n", v.version());
    out += fmt::format("  Build: {}\n", v.build());
    out += fmt::format("  DPDK: {}{}\n", v.dpdk().empty() ? "-" : v.dpdk(), v.dataplane() ? "" : " (dataplane off)");
    out += fmt::format("  Started: {} (up {}), pid {}\n", v.started(), format_duration(v.uptime_seconds()), v.pid());
    out += fmt::format("  Configuration: {}, {} reload{}\n", v.config_file().empty() ? "(command line)" : v.config_file(),
                       v.reloads(), v.reloads() == 1 ? "" : "s");
    if (v.ports_size() == 0) {
        out += "  Ports: none\n";
        return out;
    }
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"Port", "Device", "VRF"});
    for (const auto& p : v.ports())
        rows.push_back({p.name(), p.devargs().empty() ? fmt::format("vlan {} on {}", p.vlan(), p.parent()) : p.devargs(),
                        p.vrf().empty() ? "default" : p.vrf()});
    return out + "\n" + format_columns(rows);
}

std::string format_running_config(const pb::RunningConfig& c) {
    std::string out = fmt::format("# srv6d running configuration ({}{})\n",
                                  c.file().empty() ? "no file: the command line" : "read from " + c.file(),
                                  c.reloads() ? fmt::format(", {} reload{} applied", c.reloads(), c.reloads() == 1 ? "" : "s")
                                              : std::string());
    return out + c.text();
}

std::string format_locators(const pb::LocatorTable& t) {
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"Locator", "Block", "Node", "SIDs", "Refused", "Behaviors"});
    for (const auto& l : t.locators())
        rows.push_back({l.prefix(), fmt::format("{}", l.block_len()), fmt::format("{}", l.node_len()),
                        fmt::format("{}", l.sids_size()), fmt::format("{}", l.refused()),
                        fmt::format("{}", fmt::join(l.behaviors(), ", "))});
    std::string out = format_columns(rows);
    if (t.unstructured())
        out += fmt::format("\nSIDs without a structure (in no locator): {}\n", t.unstructured());
    return out;
}

}  // namespace mgmt
