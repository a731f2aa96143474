#include "apps/srv6ctl/command.hh"

#include <dirent.h>

#include <algorithm>

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "apps/srv6ctl/trace_session.hh"
#include "mgmt/json.hh"
#include "mgmt/text.hh"

namespace srv6ctl {
namespace pb = mgmt::pb;
using mgmt::cli::value_kind;

std::optional<pb::Response> ask(mgmt::client& c, const pb::Request& req) {
    if (auto r = c.call(req))
        return r;
    if (!c.connect())
        return std::nullopt;
    return c.call(req);
}

namespace {

// Not found, as vtysh says it; "" when the answer found something.
std::string not_found(const mgmt::ctl_command& cmd, const pb::Response& r) {
    if (r.has_route() && r.route().nh_kind() == "miss")
        return fmt::format("no route covers {}", r.route().address());
    const auto& q = cmd.request.show_routes();
    if (r.has_routes() && cmd.request.has_show_routes() && (q.has_prefix() || q.has_address())) {
        for (const auto& t : r.routes().tables())
            if (t.routes_size() > 0)
                return {};
        return "% Network not in table";
    }
    if (r.has_sids() && cmd.inv.has("SID") && r.sids().sids_size() == 0)
        return fmt::format("% No local SID covers {}", *cmd.inv.get("SID"));
    return {};
}

// srv6d before show ip route's fields ignores them: filter here what it sent too much of.
void filter_routes(const mgmt::ctl_command& cmd, pb::Response& r) {
    const auto& q = cmd.request.show_routes();
    if (!r.has_routes() || !q.has_family())
        return;
    const bool v6 = q.family() == 6;
    for (auto& t : *r.mutable_routes()->mutable_tables()) {
        auto* routes = t.mutable_routes();
        routes->erase(std::remove_if(routes->begin(), routes->end(),
                                     [&](const pb::Route& x) { return (x.prefix().find(':') != std::string::npos) != v6; }),
                      routes->end());
    }
}

std::vector<std::string> files(std::string_view partial) {
    const size_t slash = partial.rfind('/');
    const std::string dir = slash == std::string_view::npos ? "." : std::string(partial.substr(0, slash + 1));
    const std::string head = slash == std::string_view::npos ? "" : dir;
    const std::string_view base = slash == std::string_view::npos ? partial : partial.substr(slash + 1);
    std::vector<std::string> out;
    std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
    if (!d)
        return out;
    while (const dirent* e = readdir(d.get())) {
        const std::string_view n = e->d_name;
        if (n == "." || n == ".." || !n.starts_with(base) || (n.starts_with('.') && !base.starts_with('.')))
            continue;
        out.push_back(head + std::string(n) + (e->d_type == DT_DIR ? "/" : ""));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// "fc00:0:1:e000::/128" -> "fc00:0:1:e000::": a SID is typed as an address.
std::string address_of(const std::string& prefix) { return prefix.substr(0, prefix.find('/')); }

}  // namespace

std::vector<std::string> values_of(mgmt::client& c, value_kind k, std::string_view partial) {
    std::vector<std::string> out;
    pb::Request req;
    switch (k) {
    case value_kind::file: return files(partial);
    case value_kind::vrf:
    case value_kind::vrf_or_all:
        req.mutable_show_vrfs();
        if (auto r = ask(c, req); r && r->has_vrfs())
            for (const auto& v : r->vrfs().vrfs())
                out.push_back(v.name());
        return out;
    case value_kind::port:
        req.mutable_show_version();
        if (auto r = ask(c, req); r && r->has_version())
            for (const auto& p : r->version().ports())
                out.push_back(p.name());
        return out;
    case value_kind::sid:
    case value_kind::address:
        req.mutable_show_sids();
        if (auto r = ask(c, req); r && r->has_sids())
            for (const auto& s : r->sids().sids())
                if (std::find(out.begin(), out.end(), address_of(s.prefix())) == out.end())
                    out.push_back(address_of(s.prefix()));
        return out;
    default: return out;
    }
}

int execute(mgmt::client& c, const mgmt::ctl_command& cmd, bool json) {
    if (cmd.session) {
        mgmt::ctl_args args;
        args.json = json;
        args.request = cmd.request;
        args.session = cmd.session;
        return run_session(c, args);
    }
    auto resp = ask(c, cmd.request);
    if (!resp) {
        std::fprintf(stderr, "srv6ctl: %s\n", c.error().c_str());
        return 1;
    }
    if (!resp->error().empty()) {
        std::fprintf(stderr, "srv6ctl: srv6d: %s\n", resp->error().c_str());
        return 1;
    }
    filter_routes(cmd, *resp);
    if (cmd.inv.cmd && cmd.inv.cmd->post)
        cmd.inv.cmd->post(cmd.inv, *resp);
    const std::string missing = not_found(cmd, *resp);
    if (!missing.empty() && !resp->has_route()) {
        // Nothing to print but the verdict (the JSON still says it: an empty document).
        if (json)
            std::fputs(mgmt::to_json(*resp).c_str(), stdout);
        std::fprintf(stderr, "%s\n", missing.c_str());
        std::fflush(stdout);
        return 1;
    }
    const std::string out = json ? mgmt::to_json(*resp) : mgmt::format_response(*resp);
    std::fputs(out.c_str(), stdout);
    if (std::fflush(stdout) != 0)
        return 1;
    return missing.empty() ? 0 : 1;
}

}  // namespace srv6ctl
