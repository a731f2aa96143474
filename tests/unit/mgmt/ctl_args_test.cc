#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <vector>

#include "mgmt/ctl_args.hh"

namespace mgmt {
namespace SRV6D_UNITY_ID {

ctl_parse_result parse(std::initializer_list<const char*> words) {
    std::vector<const char*> argv(words.size() + 1, "srv6ctl");
    std::copy(words.begin(), words.end(), argv.begin() + 1);
    return parse_ctl_args(static_cast<int>(argv.size()), argv.data());
}

void expect_error(std::initializer_list<const char*> words, std::string_view error) {
    const auto p = parse(words);
    EXPECT_FALSE(p.args) << error;
    EXPECT_EQ(p.error, error);
}

TEST(CtlArgs, ShowEachThing) {
    auto p = parse({"show", "fpm"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_TRUE(p.args->request.has_show_fpm());
    EXPECT_EQ(p.args->socket, "/run/srv6d/srv6d.sock");
    EXPECT_FALSE(p.args->json);
    EXPECT_TRUE(parse({"show", "nexthops"}).args->request.has_show_nexthops());
    EXPECT_TRUE(parse({"show", "sids"}).args->request.has_show_sids());
    EXPECT_TRUE(parse({"show", "vrfs"}).args->request.has_show_vrfs());
    EXPECT_TRUE(parse({"show", "encap-source"}).args->request.has_show_encap_source());
    EXPECT_TRUE(parse({"show", "memory"}).args->request.has_show_memory());
    p = parse({"show", "routes", "vrf", "red"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.show_routes().vrf(), "red");
    EXPECT_FALSE(p.args->request.show_routes().has_table());
    p = parse({"show", "routes"});
    ASSERT_TRUE(p.args);
    ASSERT_TRUE(p.args->request.has_show_routes());
    EXPECT_FALSE(p.args->request.show_routes().has_table());
}

TEST(CtlArgs, SetLogLevel) {
    auto p = parse({"set", "log-level", "debug"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.set_log_level().level(), "debug");
    p = parse({"se", "l", "w", "json"});  // abbreviated, trailing json
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.set_log_level().level(), "warn");
    EXPECT_TRUE(p.args->json);
    p = parse({"set", "log-level", "loud"});
    ASSERT_FALSE(p.args);
    EXPECT_EQ(p.error, "log level 'loud' is not one of error, warn, info, debug");
    p = parse({"set", "log-level"});
    ASSERT_FALSE(p.args);
    EXPECT_EQ(p.error, "set log-level needs LEVEL: set log-level LEVEL [json]");
    p = parse({"s", "fpm"});
    ASSERT_TRUE(p.args) << "s stays show";
    EXPECT_TRUE(p.args->request.has_show_fpm());
    p = parse({"se", "log-level", "info"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_TRUE(p.args->request.has_set_log_level());
    EXPECT_FALSE(parse({"set", "log-level", "info", "extra"}).args);
}

TEST(CtlArgs, RoutesTable) {
    auto p = parse({"show", "routes", "table", "100"});
    ASSERT_TRUE(p.args) << p.error;
    ASSERT_TRUE(p.args->request.show_routes().has_table());
    EXPECT_EQ(p.args->request.show_routes().table(), 100u);
    p = parse({"show", "routes", "table", "0"});  // table 0 is a value, not "all"
    ASSERT_TRUE(p.args);
    EXPECT_TRUE(p.args->request.show_routes().has_table());
    p = parse({"show", "routes", "table", "4294967295"});
    ASSERT_TRUE(p.args);
    EXPECT_EQ(p.args->request.show_routes().table(), 4294967295u);
}

void expect_sids_json_on_a(std::initializer_list<const char*> words) {
    const auto p = parse(words);
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->socket, "/tmp/a.sock");
    EXPECT_TRUE(p.args->json);
    EXPECT_TRUE(p.args->request.has_show_sids());
}

TEST(CtlArgs, ShowRouteAddress) {
    auto p = parse({"show", "route", "10.9.0.1"});
    ASSERT_TRUE(p.args) << p.error;
    ASSERT_TRUE(p.args->request.has_show_route());
    EXPECT_EQ(p.args->request.show_route().address(), "10.9.0.1");
    EXPECT_FALSE(p.args->request.show_route().has_vrf());
    p = parse({"sh", "ro", "fc00::1", "vrf", "blue", "json"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.show_route().address(), "fc00::1");
    EXPECT_EQ(p.args->request.show_route().vrf(), "blue");
    EXPECT_TRUE(p.args->json);
    // Without an address, a prefix of "route" still means `show routes`.
    EXPECT_TRUE(parse({"sh", "ro"}).args->request.has_show_routes());
    EXPECT_TRUE(parse({"show", "route", "vrf", "blue"}).args->request.has_show_routes());
    EXPECT_TRUE(parse({"show", "route"}).args->request.has_show_routes());
    EXPECT_EQ(parse({"show", "route", "10.0.0.1", "vrf"}).error,
              "vrf needs a value: vrf NAME (in this VRF (default: the default VRF))");
    EXPECT_EQ(parse({"show", "route", "10.0.0.1", "vrf", "a", "b"}).error,
              "unexpected 'b'; show route takes: show route ADDR [vrf NAME] [json]");
    EXPECT_EQ(parse({"show", "route", "10.0.0.1", "table", "3"}).error,
              "unexpected 'table'; show route takes: show route ADDR [vrf NAME] [json]");
    // Not an address: a usage error (exit 2), with the command that takes a prefix.
    EXPECT_EQ(parse({"show", "route", "10.0.1.0/24"}).error,
              "'10.0.1.0/24' is a prefix: `show route` takes an address (the route of a prefix: show ip route 10.0.1.0/24)");
}

TEST(CtlArgs, OptionsBeforeOrAfterTheCommand) {
    expect_sids_json_on_a({"--socket", "/tmp/a.sock", "--json", "show", "sids"});
    expect_sids_json_on_a({"show", "sids", "--socket", "/tmp/a.sock", "--json"});
    expect_sids_json_on_a({"show", "--json", "sids", "--socket=/tmp/a.sock"});
    expect_sids_json_on_a({"-s", "/tmp/a.sock", "show", "sids", "-j"});
}

TEST(CtlArgs, Abbreviations) {
    auto p = parse({"sh", "ro", "ta", "5"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.show_routes().table(), 5u);
    EXPECT_TRUE(parse({"s", "nex"}).args->request.has_show_nexthops());
    EXPECT_TRUE(parse({"s", "nei"}).args->request.has_show_neighbors());
    EXPECT_FALSE(parse({"s", "n"}).args) << "nexthops or neighbors";
    EXPECT_TRUE(parse({"show", "f"}).args->request.has_show_fpm());
    EXPECT_TRUE(parse({"sh", "vr"}).args->request.has_show_vrfs());
    expect_error({"sh", "v"}, "ambiguous command 'v': vrfs, version");
    EXPECT_TRUE(parse({"sh", "e"}).args->request.has_show_encap_source());
    EXPECT_TRUE(parse({"sh", "m"}).args->request.has_show_memory());
    EXPECT_FALSE(parse({"show", "memory", "x"}).args) << "show memory takes no argument";
    EXPECT_TRUE(parse({"show", "l2vpn"}).args->request.has_show_l2vpn());
    EXPECT_TRUE(parse({"sh", "l"}).args->request.has_show_l2vpn());
    EXPECT_TRUE(parse({"sh", "s"}).args->request.has_show_sids());
    p = parse({"sh", "ro", "v", "blue"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.show_routes().vrf(), "blue");
}

TEST(CtlArgs, Help) {
    const auto p = parse({"--help"});
    ASSERT_TRUE(p.args);
    EXPECT_TRUE(p.args->help);
    EXPECT_TRUE(parse({"show", "-h"}).args->help);  // help wins over an incomplete command
    EXPECT_NE(ctl_usage().find("show routes [table N | vrf NAME]"), std::string::npos);
    EXPECT_NE(ctl_usage().find("show vrfs"), std::string::npos);
    EXPECT_NE(ctl_usage().find("show encap-source"), std::string::npos);
    EXPECT_NE(ctl_usage().find("show counters"), std::string::npos);
    EXPECT_NE(ctl_usage().find("clear counters"), std::string::npos);
    EXPECT_NE(ctl_usage().find("set log-level"), std::string::npos);
    EXPECT_NE(ctl_usage().find("--socket"), std::string::npos);
}

TEST(CtlArgs, TrailingJsonWord) {
    // vtysh habit: `show fpm json` is `show fpm --json`.
    auto p = parse({"show", "fpm", "json"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_TRUE(p.args->json);
    EXPECT_TRUE(p.args->request.has_show_fpm());
    p = parse({"show", "routes", "vrf", "red", "json"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_TRUE(p.args->json);
    EXPECT_EQ(p.args->request.show_routes().vrf(), "red");
    // After `vrf`, "json" is the VRF's name (vtysh reads it so too); `json` after it is the switch.
    p = parse({"show", "routes", "vrf", "json", "json"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.show_routes().vrf(), "json");
    EXPECT_TRUE(p.args->json);
    EXPECT_FALSE(parse({"show", "fpm"}).args->json);
}

TEST(CtlArgs, Counters) {
    const auto s = parse({"sh", "coun"});
    ASSERT_TRUE(s.args) << s.error;
    EXPECT_TRUE(s.args->request.has_show_counters());
    const auto c = parse({"clear", "counters"});
    ASSERT_TRUE(c.args) << c.error;
    EXPECT_TRUE(c.args->request.has_clear_counters());
}

TEST(CtlArgs, TraceAndCapture) {
    auto p = parse({"trace"});
    ASSERT_TRUE(p.args) << p.error;
    ASSERT_TRUE(p.args->session);
    EXPECT_FALSE(p.args->session->capture);
    EXPECT_EQ(p.args->request.trace_start().mode(), "trace");
    EXPECT_FALSE(p.args->request.trace_start().has_port());
    EXPECT_EQ(p.args->request.trace_start().count(), 10u);
    p = parse({"tr", "po", "p0", "cou", "3", "timeout", "2"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.trace_start().port(), "p0");
    EXPECT_EQ(p.args->session->count, 3u);
    EXPECT_EQ(p.args->session->timeout_s, 2u);
    p = parse({"capture", "port", "p1", "tx", "count", "5", "file", "/tmp/x.pcap"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_TRUE(p.args->session->capture);
    EXPECT_EQ(p.args->request.trace_start().mode(), "tx");
    EXPECT_EQ(p.args->session->file, "/tmp/x.pcap");
    EXPECT_EQ(parse({"capture", "port", "p1", "file", "f"}).args->request.trace_start().mode(), "rx");
    expect_error({"capture", "count", "1", "file", "f"},
                 "capture needs port: capture port P [rx | tx | drop] [count N] file F [timeout S] [json]");
    expect_error({"capture", "port", "p1"},
                 "capture needs file: capture port P [rx | tx | drop] [count N] file F [timeout S] [json]");
    expect_error({"capture", "port", "p1", "rx", "tx", "file", "f"},
                 "unexpected 'tx'; capture takes: capture port P [rx | tx | drop] [count N] file F [timeout S] [json]");
    expect_error({"trace", "drop"}, "unexpected 'drop'; trace takes: trace [port P] [count N] [timeout S] [json]");
    expect_error({"trace", "count", "0"}, "count '0' is not a number from 1 to 65535");
    expect_error({"trace", "port"}, "port needs a value: port P (packets received on this port (default: any))");
}

TEST(CtlArgs, Errors) {
    // No command at all: the shell (or stdin's lines), not an error.
    EXPECT_TRUE(parse({}).args->interactive);
    EXPECT_TRUE(parse({"-i"}).args->interactive);
    expect_error({"frobnicate"}, "unknown command 'frobnicate'; one of: show, clear, set, trace, capture, help, exit, end, quit");
    expect_error({"show"}, "show what? fpm, routes, route, ip, ipv6, nexthops, sids, segment-routing, vrfs, encap-source, "
                           "counters, neighbors, l2vpn, memory, version, running-config");
    expect_error({"clear"}, "clear what? counters");
    expect_error({"clear", "routes"}, "unknown command 'routes' after 'clear'; one of: counters");
    expect_error({"show", "interfaces"},
                 "unknown command 'interfaces' after 'show'; one of: fpm, routes, route, ip, ipv6, nexthops, sids, "
                 "segment-routing, vrfs, encap-source, counters, neighbors, l2vpn, memory, version, running-config");
    expect_error({"show", "routes", "interface", "e0"},
                 "unexpected 'interface'; show routes takes: show routes [table N | vrf NAME] [json]");
    // An ambiguous abbreviation names its candidates (vtysh lists them too).
    expect_error({"show", "n"}, "ambiguous command 'n': nexthops, neighbors");
    expect_error({"show", "routes", "vrf"}, "vrf needs a value: vrf NAME (a VRF's table)");
    expect_error({"show", "routes", "vrf", "red", "table", "10"},
                 "unexpected 'table'; show routes takes: show routes [table N | vrf NAME] [json]");
    expect_error({"show", "vrfs", "red"}, "unexpected 'red'; show vrfs takes: show vrfs [json]");
    expect_error({"show", "routes", "table"}, "table needs a value: table N (one kernel table)");
    expect_error({"show", "routes", "table", "ten"}, "table id 'ten' is not a number from 0 to 4294967295");
    expect_error({"show", "routes", "table", "4294967296"},
                 "table id '4294967296' is not a number from 0 to 4294967295");
    expect_error({"show", "routes", "table", "10x"}, "table id '10x' is not a number from 0 to 4294967295");
    expect_error({"show", "routes", "table", "1", "2"},
                 "unexpected '2'; show routes takes: show routes [table N | vrf NAME] [json]");
    expect_error({"show", "fpm", "now"}, "unexpected 'now'; show fpm takes: show fpm [json]");
    expect_error({"show", "fpm", "--socket", ""}, "--socket needs a path");
    // Options the parser does not know, or that lack their value, are errors too.
    EXPECT_FALSE(parse({"show", "fpm", "--bogus"}).args);
    EXPECT_FALSE(parse({"show", "fpm", "--socket"}).args);
}

TEST(CtlArgs, VtyshHabits) {
    // `?`, `help`, --version: answered without srv6d.
    auto p = parse({"show", "?"});
    ASSERT_TRUE(p.args) << p.error;
    ASSERT_TRUE(p.args->question);
    EXPECT_FALSE(p.args->question->empty());
    p = parse({"?"});
    ASSERT_TRUE(p.args && p.args->question);
    p = parse({"sh?"});
    ASSERT_TRUE(p.args && p.args->question);
    EXPECT_EQ(p.args->question->front().word, "show");
    EXPECT_TRUE(parse({"help"}).args->help);
    EXPECT_TRUE(parse({"--version"}).args->version);
    EXPECT_TRUE(parse({"-V"}).args->version);
    // show ip route: the default VRF, one family, a prefix or an address.
    p = parse({"show", "ip", "route"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.show_routes().family(), 4u);
    EXPECT_EQ(p.args->request.show_routes().vrf(), "default");
    p = parse({"show", "ip", "route", "vrf", "all", "10.0.1.0/24", "json"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_FALSE(p.args->request.show_routes().has_vrf());
    EXPECT_EQ(p.args->request.show_routes().prefix(), "10.0.1.0/24");
    EXPECT_TRUE(p.args->json);
    p = parse({"sh", "ipv6", "ro", "vrf", "red", "fc00::1"});
    ASSERT_TRUE(p.args) << p.error;
    EXPECT_EQ(p.args->request.show_routes().family(), 6u);
    EXPECT_EQ(p.args->request.show_routes().vrf(), "red");
    EXPECT_EQ(p.args->request.show_routes().address(), "fc00::1");
    EXPECT_TRUE(parse({"show", "version"}).args->request.has_show_version());
    EXPECT_TRUE(parse({"show", "running-config"}).args->request.has_show_running_config());
    EXPECT_TRUE(parse({"show", "segment-routing", "srv6", "sid"}).args->request.has_show_sids());
    EXPECT_TRUE(parse({"show", "segment-routing", "srv6", "locator"}).args->request.has_show_locators());
}

}  // namespace
}  // namespace mgmt
