#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "mgmt/cli_grammar.hh"
#include "mgmt/ctl_args.hh"

namespace mgmt::cli {
namespace SRV6D_UNITY_ID {

std::vector<std::string> words_of(std::initializer_list<const char*> w) { return {w.begin(), w.end()}; }

// The words TAB offers (placeholders left out, as the shell and bash completion leave them).
std::vector<std::string> tab(std::initializer_list<const char*> before, std::string_view partial,
                             const value_source& values = {}) {
    std::vector<std::string> out;
    for (const auto& c : complete(words_of(before), partial, values))
        if (!c.placeholder)
            out.push_back(c.word);
    return out;
}

bool has(const std::vector<std::string>& v, std::string_view w) { return std::find(v.begin(), v.end(), w) != v.end(); }

// srv6d's answers, as the shell gets them.
std::vector<std::string> fake_values(value_kind k, std::string_view) {
    switch (k) {
    case value_kind::vrf:
    case value_kind::vrf_or_all: return {"blue", "red"};
    case value_kind::port: return {"ce", "core"};
    case value_kind::sid:
    case value_kind::address: return {"fc00:0:1::", "fc00:0:1:e000::"};
    default: return {};
    }
}

TEST(CliGrammar, TableIsWellFormed) {
    std::set<std::string> paths;
    for (const auto& c : commands()) {
        EXPECT_TRUE(paths.insert(std::string(c.path)).second) << "twice: " << c.path;
        EXPECT_FALSE(c.help.empty()) << c.path;
        EXPECT_EQ(c.kind == command_kind::shell, c.build == nullptr) << c.path;
        for (const auto& p : c.params) {
            EXPECT_FALSE(p.help.empty()) << c.path << " " << p.key();
            EXPECT_EQ(p.positional(), !p.metavar.empty() && p.keyword.empty()) << c.path;
            EXPECT_EQ(p.value == value_kind::none, p.metavar.empty()) << c.path << " " << p.key();
        }
        // No command is the start of another: the matcher's path ends where params begin.
        for (const auto& o : commands())
            EXPECT_FALSE(o.path != c.path && o.path.starts_with(std::string(c.path) + " ")) << c.path << " / " << o.path;
        // Every keyword on the way has its line of help for `?`.
        std::string prefix;
        for (size_t i = c.path.find(' '); i != std::string_view::npos; i = c.path.find(' ', i + 1))
            EXPECT_FALSE(prefix_help(c.path.substr(0, i)).empty()) << c.path.substr(0, i);
    }
}

TEST(CliGrammar, Synopsis) {
    auto find = [](std::string_view path) {
        for (const auto& c : commands())
            if (c.path == path)
                return &c;
        return static_cast<const command*>(nullptr);
    };
    EXPECT_EQ(synopsis(*find("show routes")), "show routes [table N | vrf NAME] [json]");
    EXPECT_EQ(synopsis(*find("show route")), "show route ADDR [vrf NAME] [json]");
    EXPECT_EQ(synopsis(*find("capture")), "capture port P [rx | tx | drop] [count N] file F [timeout S] [json]");
    EXPECT_EQ(roff_synopsis(*find("set log-level")), "\\fBset\\fR \\fBlog\\-level\\fR \\fILEVEL\\fR [\\fBjson\\fR]");
}

TEST(CliGrammar, AmbiguityIsResolvedByWhatFollows) {
    EXPECT_EQ(parse(words_of({"sh", "ro"})).inv->cmd->path, "show routes");
    EXPECT_EQ(parse(words_of({"sh", "ro", "10.0.0.1"})).inv->cmd->path, "show route");
    EXPECT_EQ(parse(words_of({"show", "route", "vrf", "red"})).inv->cmd->path, "show routes");
    EXPECT_EQ(parse(words_of({"show", "ip", "route"})).inv->cmd->path, "show ip route") << "ip exactly, not ipv6";
    EXPECT_EQ(parse(words_of({"sh", "ipv", "ro"})).inv->cmd->path, "show ipv6 route");
    EXPECT_EQ(parse(words_of({"sh", "seg", "s", "l"})).inv->cmd->path, "show segment-routing srv6 locator");
    EXPECT_EQ(parse(words_of({"sh", "n"})).error, "ambiguous command 'n': nexthops, neighbors");
    // `t` is tx or timeout: a value after it makes it timeout.
    EXPECT_TRUE(parse(words_of({"capture", "port", "p", "file", "f", "t", "5"})).inv->has("timeout"));
    EXPECT_TRUE(parse(words_of({"capture", "port", "p", "file", "f", "t"})).inv->has("tx"));
}

TEST(CliGrammar, ErrorsSayWhatWasMeant) {
    EXPECT_EQ(parse(words_of({"shwo", "fpm"})).error, "unknown command 'shwo' (did you mean 'show'?)");
    EXPECT_EQ(parse(words_of({"show", "rotues"})).error, "unknown command 'rotues' (did you mean 'routes'?)");
    EXPECT_EQ(parse(words_of({"show", "routes", "tabel", "3"})).error, "unexpected 'tabel' (did you mean 'table'?)");
    EXPECT_EQ(parse(words_of({"set", "log-level", "verbose"})).error,
              "log level 'verbose' is not one of error, warn, info, debug");
    EXPECT_EQ(parse(words_of({"set", "log-level", "debgu"})).error,
              "log level 'debgu' is not one of error, warn, info, debug (did you mean 'debug'?)");
    EXPECT_EQ(parse(words_of({"show", "route", "10.0.1.0/24"})).error,
              "'10.0.1.0/24' is a prefix: `show route` takes an address (the route of a prefix: show ip route 10.0.1.0/24)");
    EXPECT_EQ(parse(words_of({"show", "ip", "route", "fc00::/48"})).inv.has_value(), true);  // checked by the builder
    EXPECT_EQ(build_command(words_of({"show", "ip", "route", "fc00::/48"})).error,
              "'fc00::/48' is an IPv6 address: show ipv6 route fc00::/48");
    EXPECT_EQ(parse(words_of({"frobnicate"})).error,
              "unknown command 'frobnicate'; one of: show, clear, set, trace, capture, help, exit, end, quit");
}

TEST(CliGrammar, TabCompletesKeywordsAndSrv6dsValues) {
    // The gaps: `sh <TAB>`, `show` offering route, `show routes vrf <TAB>` offering VRFs.
    EXPECT_TRUE(has(tab({"sh"}, ""), "fpm"));
    EXPECT_TRUE(has(tab({"show"}, ""), "route"));
    EXPECT_TRUE(has(tab({"show"}, "ro"), "routes"));
    EXPECT_EQ(tab({"show", "routes", "vrf"}, "", fake_values), (std::vector<std::string>{"blue", "red"}));
    EXPECT_EQ(tab({"show", "ip", "route", "vrf"}, "", fake_values), (std::vector<std::string>{"all", "blue", "red"}));
    EXPECT_EQ(tab({"show", "routes", "vrf"}, "r", fake_values), (std::vector<std::string>{"red"}));
    EXPECT_EQ(tab({"trace", "port"}, "", fake_values), (std::vector<std::string>{"ce", "core"}));
    EXPECT_TRUE(has(tab({"show", "sids"}, "fc", fake_values), "fc00:0:1:e000::"));
    EXPECT_TRUE(has(tab({"show", "route"}, "", fake_values), "fc00:0:1::"));
    EXPECT_EQ(tab({"set", "log-level"}, "d"), (std::vector<std::string>{"debug"}));
    // After a keyword used once, it is not offered again; nor one of the group used.
    EXPECT_FALSE(has(tab({"show", "routes", "vrf", "red"}, ""), "vrf"));
    EXPECT_FALSE(has(tab({"show", "routes", "vrf", "red"}, ""), "table"));
    EXPECT_TRUE(has(tab({"show", "routes", "vrf", "red"}, ""), "json"));
    // capture ... file: the file system's names, not keywords.
    bool asked_files = false;
    const auto files = tab({"capture", "port", "ce", "file"}, "/tmp/x", [&](value_kind k, std::string_view) {
        asked_files |= k == value_kind::file;
        return std::vector<std::string>{"/tmp/x.pcap"};
    });
    EXPECT_TRUE(asked_files);
    EXPECT_EQ(files, (std::vector<std::string>{"/tmp/x.pcap"}));
    EXPECT_TRUE(tab({"shwo"}, "").empty());
}

TEST(CliGrammar, QuestionListsPlaceholdersAndHelp) {
    const auto c = complete(words_of({"show", "route"}), "");
    bool addr = false, cr = false;
    for (const auto& x : c) {
        addr |= x.word == "ADDR" && x.placeholder;
        cr |= x.word == "<cr>";
    }
    EXPECT_TRUE(addr);
    EXPECT_FALSE(cr) << "`show route` reads as show route ADDR first: it needs the address";
    // The exact keyword's reading alone: `show ip route ?` offers IPv4, not IPv6 too.
    bool v4 = false, v6 = false;
    for (const auto& x : complete(words_of({"show", "ip", "route"}), "")) {
        v4 |= x.word == "A.B.C.D[/M]";
        v6 |= x.word == "X:X::X:X[/M]";
    }
    EXPECT_TRUE(v4);
    EXPECT_FALSE(v6);
    const std::string text = format_candidates(complete(words_of({"show"}), ""));
    EXPECT_NE(text.find("  fpm "), std::string::npos) << text;
    EXPECT_NE(text.find("the FPM session with zebra"), std::string::npos) << text;
}

TEST(CliGrammar, DidYouMean) {
    const std::vector<std::string> c{"show", "set", "clear"};
    EXPECT_EQ(did_you_mean("shwo", c), "show");
    EXPECT_EQ(did_you_mean("clera", c), "clear");
    EXPECT_EQ(did_you_mean("zzzz", c), "");
    EXPECT_EQ(did_you_mean("x", c), "");
}

}  // namespace SRV6D_UNITY_ID
}  // namespace mgmt::cli
