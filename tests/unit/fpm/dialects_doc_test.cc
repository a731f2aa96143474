// docs/fpm-dialects.md's table of SONiC action codes against the decoder's mapping
// (fpm::sonic::to_endpoint) and the behavior contract's names: a code the doc lists
// differently from the code fails here.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "rib/behaviors.hh"
#include "fpm/sonic_wire.hh"

namespace fpm::sonic {
namespace SRV6D_UNITY_ID {

// "End.B6.Encaps" -> "end_b6_encaps": how the doc spells rib::behavior values.
std::string enum_spelling(std::string_view rfc) {
    std::string s;
    for (char c : rfc)
        s += c == '.' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(std::string s) {
    const auto b = s.find_first_not_of(' ');
    const auto e = s.find_last_not_of(' ');
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

TEST(DialectsDoc, SonicActionCodesAreTheDecodersAndTheContracts) {
    const std::string path = SRV6D_FIXTURES "/../../docs/fpm-dialects.md";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    // | code | SONiC | `rib::behavior` | flavors |  ->  code: {behavior cell, flavors cell}
    std::map<uint32_t, std::pair<std::string, std::string>> doc;
    bool in_table = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("| code | SONiC |", 0) == 0) {
            in_table = true;
            continue;
        }
        if (!in_table)
            continue;
        if (line.empty() || line[0] != '|')
            break;
        std::vector<std::string> cells;
        std::stringstream ss(line.substr(1));
        for (std::string c; std::getline(ss, c, '|');)
            cells.push_back(trim(c));
        if (cells.size() < 4 || cells[0].empty() || !std::isdigit(static_cast<unsigned char>(cells[0][0])))
            continue;  // the separator, and the "0, >= 22" line
        if (cells[0].find(',') != std::string::npos)
            continue;
        doc[static_cast<uint32_t>(std::stoul(cells[0]))] = {cells[2], cells[3]};
    }
    ASSERT_FALSE(doc.empty()) << "no SONiC action table in " << path;
    for (uint32_t code = 0; code < 64; ++code) {
        SCOPED_TRACE("code " + std::to_string(code));
        const auto ep = to_endpoint(code);
        auto it = doc.find(code);
        ASSERT_EQ(ep.has_value(), it != doc.end()) << "the doc and to_endpoint() disagree on whether it exists";
        if (!ep)
            continue;
        const std::string name = enum_spelling(rib::behavior_name(ep->behavior));
        EXPECT_EQ(it->second.first.substr(0, name.size()), name) << it->second.first;
        EXPECT_TRUE(it->second.first.size() == name.size() || it->second.first[name.size()] == ' ');
        EXPECT_EQ(it->second.second, ep->flavors ? rib::flavors_to_string(ep->flavors) == "next-csid" ? "next_csid"
                                                                                                       : rib::flavors_to_string(ep->flavors)
                                                 : "");
    }
}

}  // namespace
}  // namespace fpm::sonic
