// The key table (apps/srv6d/config_keys.hh) against what users read: every key in it is in
// docs/srv6d.md's key table and in etc/srv6d.conf with the same default (and value shape for the
// repeatable ones), and neither documents a key the table lacks.
#include "apps/srv6d/config_keys.hh"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace srv6d {
namespace SRV6D_UNITY_ID {

std::string read(const std::string& rel) {
    std::ifstream in(std::string(SRV6D_FIXTURES) + "/../../" + rel);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct doc_row {
    std::string def;   // the default column, backticks stripped
    std::string text;  // the whole row
};

// docs/srv6d.md, section "## Configuration": rows "| `key` | default | meaning |".
std::map<std::string, doc_row> doc_keys() {
    const std::string md = read("docs/srv6d.md");
    const auto from = md.find("\n## Configuration\n");
    EXPECT_NE(from, std::string::npos) << "docs/srv6d.md has no '## Configuration' section";
    const auto to = md.find("\n## ", from + 1);
    std::istringstream in(md.substr(from, to - from));
    std::map<std::string, doc_row> rows;
    static const std::regex row(R"(^\| `([a-z.-]+)` \| ([^|]*) \|)");
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_search(line, m, row))
            continue;
        std::string def = m[2].str();
        def.erase(def.find_last_not_of(' ') + 1);
        if (def.size() >= 2 && def.front() == '`' && def.back() == '`')
            def = def.substr(1, def.size() - 2);
        EXPECT_TRUE(rows.emplace(m[1].str(), doc_row{def, line}).second) << "documented twice: " << m[1];
    }
    return rows;
}

struct conf_line {
    bool commented;     // an example (`# key = ...`), not a setting
    std::string value;
};

// etc/srv6d.conf: `key = value` and `# key = example` lines, as "section.key" ("vrf" before any section).
std::multimap<std::string, conf_line> conf_keys() {
    std::istringstream in(read("etc/srv6d.conf"));
    std::multimap<std::string, conf_line> keys;
    static const std::regex section(R"(^\[([a-z]+)\]\s*$)");
    static const std::regex line(R"(^(# )?([a-z][a-z0-9-]*) =( (.*))?$)");
    std::string sect;
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (std::regex_match(l, m, section))
            sect = m[1].str();
        else if (std::regex_match(l, m, line))
            keys.emplace(sect.empty() ? m[2].str() : sect + "." + m[2].str(), conf_line{m[1].matched, m[4].str()});
    }
    return keys;
}

TEST(ConfigKeys, EveryKeyOnceWithAnApplyFunction) {
    std::set<std::string> seen;
    for (const auto& k : config_keys()) {
        EXPECT_TRUE(seen.insert(k.key()).second) << k.key() << " is in the table twice";
        EXPECT_NE(k.apply, nullptr) << k.key();
        EXPECT_EQ(find_config_key(k.key()), &k);
        EXPECT_TRUE(k.repeatable || *k.section) << k.key() << ": a plain key needs a section";
        EXPECT_FALSE(k.repeatable && *k.def) << k.key() << ": a repeatable key has no default";
    }
    EXPECT_EQ(find_config_key("fpm.prot"), nullptr);
}

TEST(ConfigKeys, EveryDefaultIsValid) {
    for (const auto& k : config_keys()) {
        if (k.repeatable)
            continue;
        config c = default_config();
        EXPECT_EQ(k.apply(c, k.key(), k.def), "") << k.key() << " = " << k.def;
    }
}

// A short line: the nearest key, else the keys of its section, else the sections; never the
// list of every key.
TEST(ConfigKeys, UnknownKeyNamesTheNearestOnly) {
    config c = default_config();
    const std::string e = apply_setting(c, "fpm.prot", "1");
    EXPECT_EQ(e, "unknown setting 'fpm.prot' (did you mean 'fpm.port'?)");
    const std::string far = unknown_key_error("fpm.colour");
    EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
    EXPECT_EQ(far.rfind("unknown setting 'fpm.colour' ([fpm] has: listen, port, ", 0), 0u) << far;
    EXPECT_EQ(far.find("mgmt"), std::string::npos) << far;
    const std::string none = unknown_key_error("colour");
    EXPECT_NE(none.find("sections: [fpm] [mgmt]"), std::string::npos) << none;
    for (const auto& k : config_keys())
        EXPECT_LT(unknown_key_error(k.key() + "xyzzy").size(), 200u) << k.key();
    EXPECT_EQ(nearest_section("fmp"), "fpm");
    EXPECT_EQ(nearest_section("xyz"), "");
}

TEST(ConfigKeys, DocsListEveryKeyWithItsDefault) {
    const auto docs = doc_keys();
    ASSERT_FALSE(docs.empty());
    for (const auto& k : config_keys()) {
        const auto it = docs.find(k.key());
        if (it == docs.end()) {
            ADD_FAILURE() << k.key() << " is not in docs/srv6d.md's key table";
            continue;
        }
        if (*k.def) {
            EXPECT_EQ(it->second.def, k.def) << k.key() << ": docs/srv6d.md's default differs";
        } else {
            EXPECT_TRUE(it->second.def == "none" || it->second.def == "*(none)*") << k.key() << ": " << it->second.def;
        }
        if (k.repeatable) {
            EXPECT_NE(it->second.text.find(k.arg), std::string::npos)
                << k.key() << ": docs/srv6d.md does not show '" << k.arg << "'";
        }
    }
    for (const auto& [key, row] : docs)
        EXPECT_NE(find_config_key(key), nullptr) << "docs/srv6d.md documents '" << key << "', which srv6d does not know";
}

TEST(ConfigKeys, SampleConfigShowsEveryKeyWithItsDefault) {
    const auto conf = conf_keys();
    const std::string text = read("etc/srv6d.conf");
    ASSERT_FALSE(conf.empty());
    for (const auto& k : config_keys()) {
        const auto [b, e] = conf.equal_range(k.key());
        if (b == e) {
            ADD_FAILURE() << k.key() << " is not in etc/srv6d.conf";
            continue;
        }
        if (k.repeatable) {
            // Examples only (a line would configure something), and the value's shape explained.
            for (auto it = b; it != e; ++it)
                EXPECT_TRUE(it->second.commented) << k.key() << " = " << it->second.value;
            EXPECT_NE(text.find(k.arg), std::string::npos) << "etc/srv6d.conf does not show '" << k.arg << "'";
        } else {
            EXPECT_EQ(std::distance(b, e), 1) << k.key();
            EXPECT_FALSE(b->second.commented) << k.key() << ": set it to its default, not in a comment";
            EXPECT_EQ(b->second.value, k.def) << k.key() << ": etc/srv6d.conf's value is not the default";
        }
    }
    for (const auto& [key, line] : conf)
        EXPECT_NE(find_config_key(key), nullptr) << "etc/srv6d.conf has '" << key << "', which srv6d does not know";
}

// man/srv6d.conf.5 (installed): a ".TP" / ".B key" entry per key, its default in the entry,
// and no entry for a key srv6d does not know.
TEST(ConfigKeys, ManPageListsEveryKeyWithItsDefault) {
    std::string man = read("man/srv6d.conf.5");
    ASSERT_FALSE(man.empty());
    for (const std::string esc : {"\\-", "\\&"})  // roff's escaped hyphen, zero-width space
        for (size_t p = man.find(esc); p != std::string::npos; p = man.find(esc, p))
            man.replace(p, esc.size(), esc == "\\-" ? "-" : "");
    const size_t keys = man.find(".SH KEYS");
    ASSERT_NE(keys, std::string::npos);
    const std::string section = man.substr(keys, man.find(".SH ", keys + 1) - keys);
    std::map<std::string, std::string> entries;  // key -> its entry's text
    const std::regex entry(R"(\.TP\n\.B ([a-z.-]+)\n)");
    for (auto it = std::sregex_iterator(section.begin(), section.end(), entry); it != std::sregex_iterator(); ++it) {
        const size_t from = static_cast<size_t>(it->position(0) + it->length(0));
        entries[(*it)[1]] = section.substr(from, section.find(".TP", from) - from);
    }
    for (const auto& k : config_keys()) {
        const auto it = entries.find(k.key());
        if (it == entries.end()) {
            ADD_FAILURE() << k.key() << " is not in man/srv6d.conf.5";
            continue;
        }
        if (*k.def) {
            EXPECT_NE(it->second.find(k.def), std::string::npos)
                << k.key() << ": man/srv6d.conf.5 does not show the default " << k.def;
        }
    }
    for (const auto& [key, text] : entries)
        EXPECT_NE(find_config_key(key), nullptr) << "man/srv6d.conf.5 documents '" << key << "', which srv6d does not know";
}

}  // namespace
}  // namespace srv6d
