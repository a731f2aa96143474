// Reload (issue 36): every key of the configuration, changed alone, is named by
// config_changes() with its old and new values, and is either applied at run time or comes
// with the reason it takes a restart. A key added to config_keys() without a row in
// config_diff.cc fails here.
#include "apps/srv6d/config_diff.hh"

#include <gtest/gtest.h>

#include <map>

#include "apps/srv6d/config_keys.hh"

namespace srv6d {
namespace SRV6D_UNITY_ID {

// A value of each key other than its default.
const std::map<std::string, std::string> samples = {
    {"fpm.listen", "127.0.0.2"},
    {"fpm.port", "2621"},
    {"fpm.resync-quiet-ms", "5000"},
    {"fpm.resync-max-ms", "60000"},
    {"fpm.allow-user", "frr"},
    {"fpm.allow-address", "10.0.0.0/8"},
    {"fpm.takeover-idle-ms", "1000"},
    {"fpm.first-frame-timeout-ms", "2000"},
    {"fpm.kernel-check", "false"},
    {"mgmt.socket", "/run/other/srv6d.sock"},
    {"mgmt.group", "root"},
    {"mgmt.max-clients", "8"},
    {"rib.max-routes", "10"},
    {"rib.max-routes-per-table", "10"},
    {"rib.max-nexthops", "10"},
    {"metrics.listen", "127.0.0.1:9464"},
    {"log.level", "debug"},
    {"log.target", "stderr"},
    {"eal.args", "--no-huge"},
    {"dataplane.enabled", "false"},
    {"dataplane.mbufs", "8191"},
    {"dataplane.punt-rate", "5"},
    {"dataplane.punt-burst", "5"},
    {"dataplane.icmp-rate", "5"},
    {"dataplane.icmp-burst", "5"},
    {"dataplane.idle-sleep", "100"},
    {"encap.source", "fc00::1"},
    {"vrf", "blue table 100"},
    {"dataplane.port", "ce1 net_null0"},
    {"dataplane.neighbor", "ce1 10.0.0.1 02:00:00:00:00:01"},
    {"dataplane.vpws", "pw1 port=ce1 segs=fc00:0:2::d2"},
    {"sids.sid", "fc00:0:1::d6 End.DT6 table 10"},
    {"routes.route", "2001:db8:b::/64 mode inline segs fc00:0:2::e"},
};

TEST(ConfigDiff, EveryKeyChangedAloneIsNamedWithBothValues) {
    const config base = default_config();
    size_t run_time = 0, restart = 0;
    for (const config_key& k : config_keys()) {
        const std::string key = k.key();
        const auto s = samples.find(key);
        ASSERT_NE(s, samples.end()) << key << ": add a sample value to this test";
        config changed = base;
        if (key == "dataplane.neighbor" || key == "dataplane.vpws") {  // each names its port
            ASSERT_EQ(apply_setting(changed, "dataplane.port", samples.at("dataplane.port")), "");
        }
        ASSERT_EQ(apply_setting(changed, key, s->second), "") << key;
        const auto diff = config_changes(base, changed);
        auto it = std::find_if(diff.begin(), diff.end(), [&](const key_change& c) { return c.key == key; });
        ASSERT_NE(it, diff.end()) << key << " changed but config_changes() does not name it";
        EXPECT_NE(it->was, it->now) << key;
        std::string why;
        const bool live = applies_at_run_time(key, &why);
        EXPECT_NE(why, "srv6d does not know how to apply it") << key;
        EXPECT_EQ(it->run_time, live) << key;
        if (!live) {
            EXPECT_FALSE(it->why.empty()) << key << ": a restart key says why";
            ++restart;
        } else {
            ++run_time;
        }
    }
    std::printf("%zu keys applied at run time, %zu take a restart\n", run_time, restart);
    EXPECT_TRUE(config_changes(base, base).empty());
}

TEST(ConfigDiff, TheKeysTheIssueNamesApplyAtRunTime) {
    for (const char* key : {"fpm.allow-user", "fpm.allow-address", "rib.max-routes", "rib.max-routes-per-table",
                            "rib.max-nexthops", "mgmt.group", "mgmt.max-clients", "metrics.listen", "dataplane.icmp-rate",
                            "dataplane.icmp-burst"})
        EXPECT_TRUE(applies_at_run_time(key)) << key;
}

TEST(ConfigDiff, ValuesAsTheConfigSpellsThem) {
    config a = default_config(), b = a;
    ASSERT_EQ(apply_setting(b, "fpm.allow-user", "frr"), "");
    ASSERT_EQ(apply_setting(b, "rib.max-routes", "40"), "");
    const auto d = config_changes(a, b);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].key, "fpm.allow-user");
    EXPECT_EQ(d[0].was, "frr root");
    EXPECT_EQ(d[0].now, "frr");
    EXPECT_EQ(d[1].key, "rib.max-routes");
    EXPECT_EQ(d[1].was, "4000000");
    EXPECT_EQ(d[1].now, "40");
}

}  // namespace SRV6D_UNITY_ID
}  // namespace srv6d
