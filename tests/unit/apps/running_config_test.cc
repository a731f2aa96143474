// show running-config and show version, as srv6d renders them (apps/srv6d/running_config.hh).
#include "apps/srv6d/running_config.hh"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "apps/srv6d/config_keys.hh"

namespace srv6d {
namespace SRV6D_UNITY_ID {

TEST(RunningConfig, EveryKeyOfTheTableIsShown) {
    const std::string text = render_config(default_config(), util::level::info);
    EXPECT_EQ(text.find("not shown"), std::string::npos) << text;
    for (const auto& k : config_keys()) {
        if (k.repeatable)
            continue;  // none by default
        // A value, or for an empty one the key as a comment ("# source =").
        const bool shown = text.find(std::string("\n") + k.name + " = ") != std::string::npos ||
                           text.find(std::string("\n# ") + k.name + " =\n") != std::string::npos;
        EXPECT_TRUE(shown) << k.key() << "\n" << text;
        if (*k.section) {
            EXPECT_NE(text.find(std::string("[") + k.section + "]\n"), std::string::npos) << k.section;
        }
    }
}

// What it prints reads back as the same configuration, key by key.
TEST(RunningConfig, ReadsBackAsTheSameConfig) {
    config c = default_config();
    for (auto [key, value] : {std::pair<const char*, const char*>{"vrf", "red table 10 members e1,e2"},
                              {"vrf", "blue table 20"},
                              {"sids.sid", "fc00:0:1:e000::/128 End.DT4 vrf red"},
                              {"sids.sid", "fc00:0:1::/48 End flavors next-csid"},
                              {"sids.sid", "fc00:0:1::9/128 End.X nh6 fc00:12::2 flavors psp"},
                              {"sids.sid", "fc00:1::b6/128 End.B6.Encaps segs fc00:0:3::e,fc00:0:2::d6 mode encap.red src fc00:0:1::7"},
                              {"routes.route", "2001:db8:b::/64 mode inline segs fc00:0:2::e,fc00:0:3::e"},
                              {"routes.route", "10.9.0.0/16 table 20 mode encap.red segs fc00:0:3::d4 src fc00:0:1::7"},
                              {"encap.source", "fc00:0:1::1"},
                              {"fpm.allow-address", "10.0.0.0/8 fc00::/16"},
                              {"metrics.listen", "[::1]:9464"},
                              {"dataplane.port", "p0 net_ring0 vrf=red mtu=9000"},
                              {"dataplane.port", "p0.100 vlan=100 parent=p0"},
                              {"dataplane.neighbor", "p0 10.0.0.2 02:00:00:00:00:02"}})
        ASSERT_EQ(apply_setting(c, key, value), "") << key << " = " << value;
    const std::string text = render_config(c, util::level::warn);
    config back = default_config();
    std::string section;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line.starts_with('#'))
            continue;
        if (line.starts_with('[')) {
            section = line.substr(1, line.size() - 2);
            continue;
        }
        const auto eq = line.find(" = ");
        ASSERT_NE(eq, std::string::npos) << line;
        const std::string key = section.empty() ? line.substr(0, eq) : section + "." + line.substr(0, eq);
        ASSERT_EQ(apply_setting(back, key, line.substr(eq + 3)), "") << line;
    }
    EXPECT_EQ(back.vrfs, c.vrfs);
    EXPECT_EQ(back.sids, c.sids);
    EXPECT_EQ(back.routes, c.routes);
    EXPECT_EQ(back.encap_source, c.encap_source);
    EXPECT_EQ(back.fpm_allow_addresses, c.fpm_allow_addresses);
    EXPECT_EQ(back.ports, c.ports);
    EXPECT_EQ(back.neighbors, c.neighbors);
    EXPECT_EQ(back.eal_args, c.eal_args);
    EXPECT_EQ(back.log_level, util::level::warn) << "the level in force, not the configured one";
    ASSERT_TRUE(back.metrics_listen);
    EXPECT_EQ(back.metrics_listen->host, "::1");
}

TEST(RunningConfig, Version) {
    config c = default_config();
    c.config_file = "/etc/srv6d/srv6d.conf";
    ASSERT_EQ(apply_setting(c, "dataplane.port", "p0 net_ring0 vrf=red"), "");
    const auto started = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
    ::mgmt::pb::Version v;
    render_version(c, {.started = started, .reloads = 2, .dataplane = true}, v, started + std::chrono::seconds(75));
    EXPECT_FALSE(v.version().empty());
    EXPECT_NE(v.dpdk().find("DPDK"), std::string::npos) << v.dpdk();
    EXPECT_EQ(v.started(), "2027-01-15T08:00:00Z");
    EXPECT_EQ(v.uptime_seconds(), 75u);
    EXPECT_EQ(v.reloads(), 2u);
    ASSERT_EQ(v.ports_size(), 1);
    EXPECT_EQ(v.ports(0).name(), "p0");
    EXPECT_EQ(v.ports(0).vrf(), "red");
}

}  // namespace SRV6D_UNITY_ID
}  // namespace srv6d
