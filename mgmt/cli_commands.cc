// srv6ctl's grammar table (cli_grammar.hh): each command's words, params, help and the request
// it sends. The vtysh spellings are rows of their own that build the same requests.
#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "mgmt/cli_grammar.hh"
#include "rib/addr.hh"

namespace mgmt::cli {
namespace {

using vk = value_kind;
using session = std::optional<ctl_session>;

uint32_t number(const invocation& inv, std::string_view key, uint32_t fallback) {
    const std::string* v = inv.get(key);
    uint32_t n = fallback;
    if (v)
        std::from_chars(v->data(), v->data() + v->size(), n);  // checked by the matcher
    return n;
}

// Rows and params name only the fields they use; the rest keep their defaults.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const param json_flag{"json", vk::none, "", "print JSON instead of text"};

// show routes / show ip route / show ipv6 route: one request, vtysh's filters on it.
std::string routes(const invocation& inv, pb::Request& r, uint32_t family) {
    auto* q = r.mutable_show_routes();
    if (family)
        q->set_family(family);
    if (const auto* t = inv.get("table")) {
        uint32_t id = 0;
        std::from_chars(t->data(), t->data() + t->size(), id);
        q->set_table(id);
    }
    if (const auto* v = inv.get("vrf"); v && *v != "all")
        q->set_vrf(*v);
    // vtysh: `show ip route` is the default VRF's; `vrf all` every table.
    if (family && !inv.has("vrf") && !inv.has("table"))
        q->set_vrf("default");
    if (const auto* p = inv.get(family == 6 ? "X:X::X:X[/M]" : "A.B.C.D[/M]")) {
        if (p->find('/') != std::string::npos)
            q->set_prefix(*p);
        else
            q->set_address(*p);
    }
    return {};
}

std::string family_mismatch(const invocation& inv, uint32_t family) {
    const auto* p = inv.get(family == 6 ? "X:X::X:X[/M]" : "A.B.C.D[/M]");
    if (!p)
        return {};
    const bool v6 = p->find(':') != std::string::npos;
    if (v6 == (family == 6))
        return {};
    return fmt::format("'{}' is an {} address: show {} route {}", *p, v6 ? "IPv6" : "IPv4", v6 ? "ipv6" : "ip", *p);
}

// show sids SID: the SID of that address (its prefix covers it) alone.
void keep_sid(const invocation& inv, pb::Response& resp) {
    const std::string* want = inv.get("SID");
    if (!want || !resp.has_sids())
        return;
    const auto a = rib::parse_addr(*want);
    auto* sids = resp.mutable_sids()->mutable_sids();
    auto covers = [&](const pb::LocalSid& s) {
        const auto p = rib::parse_prefix(s.prefix());
        return p && a && p->contains(*a);
    };
    sids->erase(std::remove_if(sids->begin(), sids->end(), [&](const pb::LocalSid& s) { return !covers(s); }),
                sids->end());
}

std::vector<command> table() {
    const param vrf{"vrf", vk::vrf, "NAME", "a VRF's table", 1};
    const param vrf_or_all{"vrf", vk::vrf_or_all, "NAME|all", "a VRF's routes, or every VRF's (all)", 1};
    const param sid{"", vk::sid, "SID", "the SID covering this address"};
    std::vector<command> c;
    c.push_back({"show fpm", "the FPM session with zebra, what it sent, the RIB's counters", {json_flag}, command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_fpm(); return std::string(); }});
    c.push_back({"show routes", "the RIB's routes with their resolved paths, by table",
                 {{"table", vk::table_id, "N", "one kernel table", 1}, vrf, json_flag}, command_kind::request,
                 [](const invocation& i, pb::Request& r, session&) { return routes(i, r, 0); }});
    c.push_back({"show route", "where the dataplane sends a packet to ADDR (the compiled tables)",
                 {{"", vk::address, "ADDR", "the destination", 0, true}, {"vrf", vk::vrf, "NAME", "in this VRF (default: the default VRF)"}, json_flag},
                 command_kind::request,
                 [](const invocation& i, pb::Request& r, session&) {
                     auto* q = r.mutable_show_route();
                     q->set_address(*i.get("ADDR"));
                     if (const auto* v = i.get("vrf"))
                         q->set_vrf(*v);
                     return std::string();
                 }});
    c.push_back({"show ip route", "the IPv4 routes of the default VRF, a VRF or all; of a prefix or covering an address",
                 {vrf_or_all, {"", vk::address_or_prefix, "A.B.C.D[/M]", "the route of this prefix, or the longest covering this address"}, json_flag},
                 command_kind::request,
                 [](const invocation& i, pb::Request& r, session&) {
                     if (auto e = family_mismatch(i, 4); !e.empty())
                         return e;
                     return routes(i, r, 4);
                 },
                 nullptr, "show routes"});
    c.push_back({"show ipv6 route", "the IPv6 routes of the default VRF, a VRF or all; of a prefix or covering an address",
                 {vrf_or_all, {"", vk::address_or_prefix, "X:X::X:X[/M]", "the route of this prefix, or the longest covering this address"}, json_flag},
                 command_kind::request,
                 [](const invocation& i, pb::Request& r, session&) {
                     if (auto e = family_mismatch(i, 6); !e.empty())
                         return e;
                     return routes(i, r, 6);
                 },
                 nullptr, "show routes"});
    c.push_back({"show nexthops", "the nexthop objects and groups zebra sent", {json_flag}, command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_nexthops(); return std::string(); }});
    c.push_back({"show sids", "the local SIDs: behavior, VRF, state (active or refused, why)", {sid, json_flag},
                 command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_sids(); return std::string(); },
                 keep_sid});
    c.push_back({"show segment-routing srv6 sid", "the local SIDs (vtysh's name for show sids)", {sid, json_flag},
                 command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_sids(); return std::string(); },
                 keep_sid, "show sids"});
    c.push_back({"show segment-routing srv6 locator", "the locators the local SIDs are in (from their structure)",
                 {json_flag}, command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_locators(); return std::string(); }});
    c.push_back({"show vrfs", "the VRFs: table, source, members, state", {json_flag}, command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_vrfs(); return std::string(); }});
    c.push_back({"show encap-source", "the H.Encaps source address in use and where it comes from", {json_flag},
                 command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_encap_source(); return std::string(); }});
    c.push_back({"show counters", "the dataplane's counters: ports, SIDs, headend, drops", {json_flag}, command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_counters(); return std::string(); }});
    c.push_back({"show neighbors", "the neighbors the dataplane rewrites with, own addresses", {json_flag},
                 command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_neighbors(); return std::string(); }});
    c.push_back({"show l2vpn", "the VPWS services: circuit, SID list, source, state, counters", {json_flag},
                 command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_l2vpn(); return std::string(); }});
    c.push_back({"show memory", "the compiled tables' memory and the mbuf pools", {json_flag}, command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_memory(); return std::string(); }});
    c.push_back({"show version", "srv6d's version, build, uptime, DPDK and ports", {json_flag}, command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_version(); return std::string(); }});
    c.push_back({"show running-config", "the configuration in force (after reloads), as srv6d.conf", {json_flag},
                 command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_show_running_config(); return std::string(); }});
    c.push_back({"clear counters", "reset the dataplane counters (prints them as they were)", {json_flag}, command_kind::request,
                 [](const invocation&, pb::Request& r, session&) { r.mutable_clear_counters(); return std::string(); }});
    c.push_back({"set log-level", "change srv6d's log level until the next reload",
                 {{"", vk::level, "LEVEL", "error, warn, info or debug", 0, true}, json_flag}, command_kind::request,
                 [](const invocation& i, pb::Request& r, session&) {
                     r.mutable_set_log_level()->set_level(*i.get("LEVEL"));
                     return std::string();
                 }});
    c.push_back({"trace", "follow the next packets through the dataplane",
                 {{"port", vk::port, "P", "packets received on this port (default: any)"},
                  {"count", vk::count, "N", "this many packets (default 10)"},
                  {"timeout", vk::seconds, "S", "wait at most this long (default 10)"},
                  json_flag},
                 command_kind::session,
                 [](const invocation& i, pb::Request& r, session& s) {
                     s.emplace();
                     s->count = number(i, "count", 10);
                     s->timeout_s = number(i, "timeout", 10);
                     auto* t = r.mutable_trace_start();
                     if (const auto* p = i.get("port"))
                         t->set_port(*p);
                     t->set_mode("trace");
                     t->set_count(s->count);
                     return std::string();
                 }});
    c.push_back({"capture", "write the next packets of a port to a pcap file",
                 {{"port", vk::port, "P", "the port", 0, true},
                  {"rx", vk::none, "", "as received (the default)", 2},
                  {"tx", vk::none, "", "as sent", 2},
                  {"drop", vk::none, "", "received and dropped", 2},
                  {"count", vk::count, "N", "this many packets (default 100)"},
                  {"file", vk::file, "F", "the pcap file srv6ctl writes", 0, true},
                  {"timeout", vk::seconds, "S", "wait at most this long (default 10)"},
                  json_flag},
                 command_kind::session,
                 [](const invocation& i, pb::Request& r, session& s) {
                     s.emplace();
                     s->capture = true;
                     s->count = number(i, "count", 100);
                     s->timeout_s = number(i, "timeout", 10);
                     s->file = *i.get("file");
                     auto* t = r.mutable_trace_start();
                     t->set_port(*i.get("port"));
                     t->set_mode(i.has("tx") ? "tx" : i.has("drop") ? "drop" : "rx");
                     t->set_count(s->count);
                     return std::string();
                 }});
    c.push_back({"help", "the commands, one line each", {}, command_kind::shell});
    c.push_back({"exit", "leave the shell", {}, command_kind::shell});
    c.push_back({"end", "leave the shell (as exit)", {}, command_kind::shell});
    c.push_back({"quit", "leave the shell (as exit)", {}, command_kind::shell});
    return c;
}
#pragma GCC diagnostic pop

}  // namespace

const std::vector<command>& commands() {
    static const std::vector<command> c = table();
    return c;
}

std::string_view prefix_help(std::string_view path) {
    if (path == "show")
        return "show srv6d's state";
    if (path == "clear")
        return "reset counters";
    if (path == "set")
        return "change a run-time setting";
    if (path == "show ip")
        return "IPv4 (vtysh's show ip route)";
    if (path == "show ipv6")
        return "IPv6 (vtysh's show ipv6 route)";
    if (path == "show segment-routing" || path == "show segment-routing srv6")
        return "SRv6 (vtysh's show segment-routing srv6)";
    return "";
}

}  // namespace mgmt::cli
