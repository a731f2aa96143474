// The man page, docs/srv6ctl.md and the bash completion against the grammar table: a command
// added, renamed or given a new argument fails here until they say so.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "mgmt/cli_grammar.hh"
#include "mgmt/ctl_args.hh"

namespace mgmt::cli {
namespace SRV6D_UNITY_ID {

std::string read(const std::string& rel) {
    std::ifstream f(std::string(SRV6D_FIXTURES) + "/../../" + rel);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// What man/srv6ctl.8's COMMANDS section should list: each command's .TP head, in table order.
std::string expected_man_heads() {
    std::string out;
    for (const auto& c : commands())
        out += ".TP\n" + roff_synopsis(c) + "\n";
    return out;
}

TEST(CliDocs, ManPageHasEveryCommandAsTheGrammarSpellsIt) {
    const std::string man = read("man/srv6ctl.8");
    ASSERT_FALSE(man.empty());
    const size_t from = man.find(".SH COMMANDS\n");
    const size_t to = man.find("\n.SH ", from + 1);
    ASSERT_NE(from, std::string::npos);
    const std::string section = man.substr(from, to - from);
    std::set<std::string> heads;
    for (const auto& c : commands()) {
        heads.insert(roff_synopsis(c));
        EXPECT_NE(section.find(".TP\n" + roff_synopsis(c) + "\n"), std::string::npos)
            << "man/srv6ctl.8 COMMANDS lacks\n.TP\n" << roff_synopsis(c) << "\n(all heads:\n" << expected_man_heads() << ")";
    }
    // Nothing the grammar no longer has.
    std::istringstream is(section);
    std::string line, prev;
    while (std::getline(is, line)) {
        if (prev == ".TP") {
            EXPECT_TRUE(heads.count(line)) << "man/srv6ctl.8 lists a command srv6ctl does not have: " << line;
        }
        prev = line;
    }
    // Every option of --help.
    for (const char* o : {"\\-\\-socket", "\\-\\-json", "\\-\\-interactive", "\\-\\-version", "\\-\\-help"})
        EXPECT_NE(man.find(o), std::string::npos) << o;
}

TEST(CliDocs, DocsHaveEveryCommand) {
    const std::string md = read("docs/srv6ctl.md");
    ASSERT_FALSE(md.empty());
    // The usage block is srv6ctl --help's first lines.
    const std::string usage = ctl_usage();
    std::istringstream is(usage);
    std::string line;
    while (std::getline(is, line) && !line.empty()) {
        if (line.find("srv6ctl [options]") == std::string::npos)
            continue;
        const std::string cmd = line.substr(line.find("srv6ctl"));
        EXPECT_NE(md.find("\n" + cmd + "\n"), std::string::npos) << "docs/srv6ctl.md usage lacks: " << cmd;
    }
    // Each command has a heading that names it.
    std::set<std::string> headings;
    std::istringstream md_lines(md);
    while (std::getline(md_lines, line))
        if (line.starts_with("## ") || line.starts_with("### "))
            headings.insert(line);
    for (const auto& c : commands()) {
        bool found = false;
        for (const auto& h : headings)
            found |= h.find(std::string(c.path)) != std::string::npos;
        EXPECT_TRUE(found) << "docs/srv6ctl.md has no heading naming " << c.path;
    }
}

TEST(CliDocs, BashCompletionAsksTheGrammar) {
    const std::string bash = read("dist/bash-completion/srv6ctl");
    ASSERT_FALSE(bash.empty());
    EXPECT_NE(bash.find("--complete"), std::string::npos) << "the words come from srv6ctl --complete";
    for (const char* o : {"--socket", "--json", "--interactive", "--version", "--help"})
        EXPECT_NE(bash.find(o), std::string::npos) << o;
}

}  // namespace SRV6D_UNITY_ID
}  // namespace mgmt::cli
