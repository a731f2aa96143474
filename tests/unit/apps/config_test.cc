#include "apps/srv6d/config.hh"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "forward/control/eal.hh"

namespace srv6d {
namespace SRV6D_UNITY_ID {

using namespace std::chrono_literals;

parse_result run(const std::vector<std::string>& args) {
    std::vector<const char*> argv{"srv6d"};
    for (const auto& a : args)
        argv.push_back(a.c_str());
    return parse_args(static_cast<int>(argv.size()), argv.data());
}

// A real file on disk: parse_args reads what the daemon would read.
class temp_file {
public:
    explicit temp_file(const std::string& text) {
        _path = std::filesystem::temp_directory_path() /
                ("srv6d_config_test_" + std::to_string(::getpid()) + "_" + std::to_string(_n++) + ".conf");
        std::ofstream(_path) << text;
    }
    ~temp_file() { std::filesystem::remove(_path); }
    std::string path() const { return _path.string(); }

private:
    static inline int _n = 0;
    std::filesystem::path _path;
};

TEST(Config, Defaults) {
    const auto r = run({});
    ASSERT_EQ(r.what, action::run) << r.text;
    EXPECT_EQ(r.cfg.fpm_listen, "127.0.0.1");
    EXPECT_EQ(r.cfg.fpm_port, 2620);
    EXPECT_EQ(r.cfg.resync_quiet, 10s);
    EXPECT_EQ(r.cfg.resync_max, 120s);
    EXPECT_EQ(r.cfg.mgmt_socket, "/run/srv6d/srv6d.sock");
    EXPECT_EQ(r.cfg.log_level, util::level::info);
    EXPECT_EQ(r.cfg.eal_args, fwd::default_eal_args());
    EXPECT_TRUE(r.cfg.dataplane_enabled);
    EXPECT_FALSE(r.cfg.encap_source.has_value());
    EXPECT_TRUE(r.cfg.config_file.empty());
}

TEST(Config, FileSetsEveryKey) {
    temp_file f(R"(# comment
[fpm]
listen = [::1]
port = 2621
resync-quiet-ms = 500
resync-max-ms = 5000
[mgmt]
socket = /tmp/x.sock
[log]
level = debug
[eal]
args = -l 1 --no-huge -m 64
[dataplane]
enabled = false
[encap]
source = fc00:a::1
)");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::run) << r.text;
    EXPECT_EQ(r.cfg.config_file, f.path());
    EXPECT_EQ(r.cfg.fpm_listen, "::1");
    EXPECT_EQ(r.cfg.fpm_port, 2621);
    EXPECT_EQ(r.cfg.resync_quiet, 500ms);
    EXPECT_EQ(r.cfg.resync_max, 5000ms);
    EXPECT_EQ(r.cfg.mgmt_socket, "/tmp/x.sock");
    EXPECT_EQ(r.cfg.log_level, util::level::debug);
    EXPECT_EQ(r.cfg.eal_args, (std::vector<std::string>{"-l", "1", "--no-huge", "-m", "64"}));
    EXPECT_FALSE(r.cfg.dataplane_enabled);
    ASSERT_TRUE(r.cfg.encap_source.has_value());
    EXPECT_EQ(rib::to_string(*r.cfg.encap_source), "fc00:a::1");
}

TEST(Config, CommandLineOverridesFile) {
    temp_file f("[fpm]\nport = 2621\nlisten = 127.0.0.2\n[log]\nlevel = warn\n");
    // The override comes before -c on purpose: precedence must not depend on argument order.
    const auto r = run({"--fpm.port", "2699", "--config", f.path(), "--dataplane.enabled=no"});
    ASSERT_EQ(r.what, action::run) << r.text;
    EXPECT_EQ(r.cfg.fpm_port, 2699);               // command line wins
    EXPECT_EQ(r.cfg.fpm_listen, "127.0.0.2");      // file still applies where not overridden
    EXPECT_EQ(r.cfg.log_level, util::level::warn);
    EXPECT_FALSE(r.cfg.dataplane_enabled);
}

TEST(Config, OverridesWithoutFile) {
    const auto r = run({"--fpm.listen", "::", "--fpm.port", "0", "--encap.source", "2001:db8::1"});
    ASSERT_EQ(r.what, action::run) << r.text;
    EXPECT_EQ(r.cfg.fpm_listen, "::");
    EXPECT_EQ(r.cfg.fpm_port, 0);
    EXPECT_TRUE(r.cfg.encap_source.has_value());
}

struct bad_case {
    std::string key, value, expect_in_message;
};

TEST(Config, InvalidValuesNameKeyAndValue) {
    const std::vector<bad_case> cases = {
        {"fpm.listen", "localhost", "an IPv4 or IPv6 address"},
        {"fpm.listen", "10.0.0.300", "an IPv4 or IPv6 address"},
        {"fpm.port", "65536", "0..65535"},
        {"fpm.port", "-1", "0..65535"},
        {"fpm.port", "26x", "0..65535"},
        {"fpm.port", "", "0..65535"},
        {"fpm.resync-quiet-ms", "0", "milliseconds"},
        {"fpm.resync-max-ms", "1e3", "milliseconds"},
        {"log.level", "verbose", "error, warn, info or debug"},
        {"dataplane.enabled", "maybe", "true or false"},
        {"encap.source", "10.0.0.1", "unicast IPv6"},
        {"encap.source", "::", "unicast IPv6"},
        {"encap.source", "ff02::1", "unicast IPv6"},
        {"encap.source", "::1", "loopback"},
        {"encap.source", "fe80::1", "link-local"},
        {"mgmt.socket", std::string(200, 'x'), "unix socket path"},
    };
    for (const auto& c : cases) {
        const auto r = run({"--" + c.key, c.value});
        EXPECT_EQ(r.what, action::error) << c.key << "=" << c.value;
        EXPECT_NE(r.text.find(c.key), std::string::npos) << r.text;
        EXPECT_NE(r.text.find("'" + c.value + "'"), std::string::npos) << r.text;
        EXPECT_NE(r.text.find(c.expect_in_message), std::string::npos) << r.text;
    }
}

TEST(Config, InvalidValueInFileNamesFileKeyAndValue) {
    temp_file f("[fpm]\nport = 99999\n");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::error);
    EXPECT_NE(r.text.find(f.path()), std::string::npos) << r.text;
    EXPECT_NE(r.text.find("fpm.port"), std::string::npos) << r.text;
    EXPECT_NE(r.text.find("'99999'"), std::string::npos) << r.text;
}

TEST(Config, UnknownKeyInFileIsAnError) {
    temp_file f("[fpm]\nprot = 2620\n");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, f.path() + ":2: unknown setting 'fpm.prot' (did you mean 'fpm.port'?)");
}

// Every error of a file names FILE:LINE (as vtysh's `line N:`), bare lines included, and never
// Boost's own text.
TEST(Config, EveryFileErrorNamesItsLine) {
    const std::pair<const char*, const char*> bad[] = {
        {"# c\n\ngarbage here\n", ":3: 'garbage here' is not 'key = value', a [section] or a # comment"},
        {"[fpm]\nport 2621\n", ":2: 'port 2621' is not 'key = value' (did you mean 'port = 2621'?)"},
        {"[fmp]\nport = 1\n", ":1: unknown section [fmp] (did you mean [fpm]?)"},
        {"[zzz]\n", ":1: unknown section [zzz] (sections: [fpm] [mgmt]"},
        {"[fpm\n", ":1: '[fpm' is not a [section] line"},
        {"[fpm]\n = 3\n", ":2: '= 3' has no key before its '='"},
        {"[fpm]\nport = 1\nlisten = ::1\nport = 2\n", ":4: fpm.port is set twice (first on line 2)"},
        {"[fpm]\nlevel = debug\n", ":2: unknown setting 'fpm.level': level belongs in [log]"},
        {"[fpm]\n\nport = x\n", ":3: invalid value 'x' for fpm.port"},
        {"[fpm]\nresync-quiet-ms = 5000\nresync-max-ms = 100\n", ":3: fpm.resync-max-ms (100) must not be smaller"},
        {"[dataplane]\nport = a net_null0\n\nport = a.1 vlan=10 parent=b\n", ":4: sub-port a.1: parent 'b'"},
        {"[dataplane]\nport = a net_null0\nneighbor = a 10.0.0.3 02:00:00:00:00:01\nneighbor = b 10.0.0.3 "
         "02:00:00:00:00:01\n",
         ":4: neighbor on port 'b': no such port"},
    };
    for (const auto& [text, want] : bad) {
        temp_file f(text);
        const auto r = run({"-c", f.path()});
        EXPECT_EQ(r.what, action::error) << text;
        EXPECT_EQ(r.text.rfind(f.path() + want, 0), 0u) << text << " -> " << r.text;
        EXPECT_EQ(r.text.find("the options configuration file"), std::string::npos) << r.text;
    }
    // The same value on the command line names no line.
    const auto r = run({"--fpm.port", "x"});
    EXPECT_EQ(r.text.rfind("invalid value 'x' for fpm.port", 0), 0u) << r.text;
    // Comments after values, blanks, CRLF line ends: what Boost's parser accepted.
    temp_file ok("[fpm]   \r\n  port = 2621 # the test port\r\n[log]\nlevel=debug\n");
    const auto o = run({"-c", ok.path()});
    ASSERT_EQ(o.what, action::run) << o.text;
    EXPECT_EQ(o.cfg.fpm_port, 2621);
    EXPECT_EQ(o.cfg.log_level, util::level::debug);
}

TEST(Config, UnknownOptionIsAnError) {
    const auto r = run({"--fpm.prot", "1"});
    ASSERT_EQ(r.what, action::error);
    EXPECT_NE(r.text.find("fpm.prot"), std::string::npos) << r.text;
}

TEST(Config, StrayArgumentIsAnError) {
    const auto r = run({"2621"});
    EXPECT_EQ(r.what, action::error);
}

TEST(Config, MissingFileIsAnError) {
    const auto r = run({"-c", "/nonexistent/srv6d.conf"});
    ASSERT_EQ(r.what, action::error);
    EXPECT_NE(r.text.find("/nonexistent/srv6d.conf"), std::string::npos) << r.text;
}

TEST(Config, DirectoryAsConfigFileIsAnError) {
    const std::string dir = std::filesystem::temp_directory_path().string();
    const auto r = run({"-c", dir});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, "config file '" + dir + "' is not a regular file (a directory)");
}

TEST(Config, CheckConfigValidatesWithoutStarting) {
    const temp_file good("[fpm]\nport = 2621\n");
    auto r = run({"--check-config", good.path()});
    EXPECT_TRUE(r.check_only);
    EXPECT_EQ(r.what, action::run) << r.text;
    EXPECT_EQ(r.cfg.fpm_port, 2621);
    EXPECT_EQ(r.cfg.config_file, good.path());

    const temp_file bad("[fpm]\nport = seventy\n");
    r = run({"--check-config", bad.path()});
    EXPECT_TRUE(r.check_only);
    ASSERT_EQ(r.what, action::error);
    EXPECT_NE(r.text.find("invalid value 'seventy' for fpm.port"), std::string::npos) << r.text;

    // The command line's overrides are checked with the file, as srv6d would start with them.
    r = run({"--check-config", good.path(), "--log.level", "loud"});
    EXPECT_TRUE(r.check_only);
    EXPECT_EQ(r.what, action::error);

    r = run({"--check-config", good.path(), "-c", good.path()});
    EXPECT_EQ(r.what, action::error) << "one file or the other";
}

TEST(Config, LogTarget) {
    EXPECT_EQ(run({}).cfg.log_target, util::target::automatic);
    EXPECT_EQ(run({"--log.target", "syslog"}).cfg.log_target, util::target::syslog);
    EXPECT_EQ(run({"--log.target", "journal"}).cfg.log_target, util::target::journal);
    const auto r = run({"--log.target", "file"});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, "invalid value 'file' for log.target: expected auto, stderr, syslog or journal");
}

TEST(Config, EalPreflightSaysWhatIsMissing) {
    // --in-memory with --no-huge: DPDK refuses the pair with a message that does not say why.
    EXPECT_NE(fwd::eal_preflight({"-l", "0", "--in-memory", "--no-huge", "-m", "256"}).find("cannot be combined"),
              std::string::npos);
    EXPECT_EQ(fwd::eal_preflight({"-l", "0", "--no-huge", "-m", "256", "--no-shconf"}), "");
    // Hugepages needed: none free is said as such (not rte_eal_init's "Permission denied").
    const auto dir = std::filesystem::temp_directory_path() / ("srv6d_hp_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "hugepages-2048kB");
    std::filesystem::create_directories(dir / "hugepages-1048576kB");
    std::ofstream(dir / "hugepages-2048kB" / "free_hugepages") << "0\n";
    std::ofstream(dir / "hugepages-1048576kB" / "free_hugepages") << "0\n";
    const std::string e = fwd::eal_preflight(fwd::default_eal_args(), dir.string());
    EXPECT_NE(e.find("no free hugepages"), std::string::npos) << e;
    EXPECT_NE(e.find("--no-huge -m 256 --no-shconf"), std::string::npos) << e;
    std::ofstream(dir / "hugepages-2048kB" / "free_hugepages") << "12\n";
    EXPECT_EQ(fwd::eal_preflight(fwd::default_eal_args(), dir.string()), "");
    // Pages but no --in-memory: a hugetlbfs mount is needed.
    std::ofstream(dir / "mounts") << "proc /proc proc rw 0 0\n";
    const std::vector<std::string> no_in_memory{"-l", "0", "--no-pci"};
    EXPECT_NE(fwd::eal_preflight(no_in_memory, dir.string(), (dir / "mounts").string()).find("no hugetlbfs mounted"),
              std::string::npos);
    std::ofstream(dir / "mounts", std::ios::app) << "hugetlbfs /dev/hugepages hugetlbfs rw,pagesize=2M 0 0\n";
    EXPECT_EQ(fwd::eal_preflight(no_in_memory, dir.string(), (dir / "mounts").string()), "");
    std::filesystem::remove_all(dir);
}

// --check-config's look at the EAL settings: a pair DPDK refuses anywhere is an error; what this
// host lacks (pages, a mount, the lcores' CPUs) a warning each.
TEST(Config, CheckHostReadsTheEalSettings) {
    const auto dir = std::filesystem::temp_directory_path() / ("srv6d_ch_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "hugepages-2048kB");
    std::ofstream(dir / "hugepages-2048kB" / "free_hugepages") << "0\n";
    std::ofstream(dir / "mounts") << "proc /proc proc rw 0 0\n";
    config c = default_config();
    auto h = check_host(c, "0-1", dir.string(), (dir / "mounts").string());
    EXPECT_EQ(h.error, "");
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_NE(h.warnings[0].find("no free hugepages"), std::string::npos) << h.warnings[0];
    std::ofstream(dir / "hugepages-2048kB" / "free_hugepages") << "64\n";
    EXPECT_TRUE(check_host(c, "0-1", dir.string(), (dir / "mounts").string()).warnings.empty());
    c.eal_args = {"-l", "0,2-3", "--in-memory"};
    h = check_host(c, "0-1", dir.string(), (dir / "mounts").string());
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_EQ(h.warnings[0], "eal.args: lcore 2 of '-l 0,2-3' is not a CPU srv6d may use here (CPUs 0-1)");
    c.eal_args = {"-l", "0", "--no-pci"};
    h = check_host(c, "0-1", dir.string(), (dir / "mounts").string());
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_NE(h.warnings[0].find("no hugetlbfs mounted"), std::string::npos) << h.warnings[0];
    c.eal_args = {"-l", "0", "--in-memory", "--no-huge", "-m", "256"};
    EXPECT_NE(check_host(c, "0-1", dir.string(), (dir / "mounts").string()).error.find("cannot be combined"),
              std::string::npos);
    c.dataplane_enabled = false;  // no EAL at all
    h = check_host(c, "0-1", dir.string(), (dir / "mounts").string());
    EXPECT_TRUE(h.error.empty() && h.warnings.empty());
    std::filesystem::remove_all(dir);
}

TEST(Config, ResyncMaxBelowQuietIsAnError) {
    const auto r = run({"--fpm.resync-quiet-ms", "2000", "--fpm.resync-max-ms", "1000"});
    ASSERT_EQ(r.what, action::error);
    EXPECT_NE(r.text.find("fpm.resync-max-ms"), std::string::npos) << r.text;
}

TEST(Config, EmptyEncapSourceMeansNone) {
    temp_file f("[encap]\nsource =\n");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::run) << r.text;
    EXPECT_FALSE(r.cfg.encap_source.has_value());
}

TEST(Config, VrfLinesInFileOrder) {
    temp_file f(R"(# VRFs come before any [section]
vrf = red table 10 members eth1,eth2
vrf = blue table 1000
[encap]
source = fc00:0:1::9
)");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::run) << r.text;
    ASSERT_EQ(r.cfg.vrfs.size(), 2u);
    EXPECT_EQ(r.cfg.vrfs[0].name, "red");
    EXPECT_EQ(r.cfg.vrfs[0].table, 10u);
    ASSERT_EQ(r.cfg.vrfs[0].members.size(), 2u);
    EXPECT_EQ(r.cfg.vrfs[0].members[1].name, "eth2");
    EXPECT_EQ(r.cfg.vrfs[1].name, "blue");
    EXPECT_EQ(r.cfg.vrfs[1].table, 1000u);
    EXPECT_TRUE(r.cfg.vrfs[1].members.empty());
    EXPECT_TRUE(run({}).cfg.vrfs.empty());
}

TEST(Config, CommandLineVrfsReplaceTheFiles) {
    temp_file f("vrf = red table 10\nvrf = blue table 20\n");
    const auto r = run({"-c", f.path(), "--vrf", "green table 30", "--vrf=black table 40"});
    ASSERT_EQ(r.what, action::run) << r.text;
    ASSERT_EQ(r.cfg.vrfs.size(), 2u);
    EXPECT_EQ(r.cfg.vrfs[0].name, "green");
    EXPECT_EQ(r.cfg.vrfs[1].name, "black");
}

TEST(Config, InvalidVrfLines) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"red table ten"}, "vrf 'red table ten': table 'ten' is not a number from 1 to 4294967295"},
        {{"red"}, "vrf 'red': missing 'table ID': a VRF has exactly one table"},
        {{"red table 254"}, "vrf 'red table 254': table 254 is the default VRF's"},
        {{"red table 10", "red table 11"}, "invalid vrf 'red table 11': vrf red is configured twice"},
        {{"red table 10", "blue table 10"},
         "invalid vrf 'blue table 10': vrf blue: table 10 is already bound to vrf red"},
    };
    for (const auto& [lines, message] : cases) {
        std::vector<std::string> args;
        for (const auto& l : lines)
            args.insert(args.end(), {"--vrf", l});
        const auto r = run(args);
        EXPECT_EQ(r.what, action::error) << lines.back();
        EXPECT_EQ(r.text, message);
    }
}

TEST(Config, VrfInsideASectionIsExplained) {
    temp_file f("[fpm]\nport = 2620\nvrf = red table 10\n");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, f.path() + ":3: 'vrf = ...' in [fpm]: vrf lines go before the first [section]");
}

TEST(Config, InvalidVrfInFileNamesTheFile) {
    temp_file f("vrf = red table 0\n");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text.rfind(f.path() + ":1: vrf 'red table 0': ", 0), 0u) << r.text;
}

TEST(Config, SidLinesInTheirSection) {
    temp_file f(R"(vrf = red table 10
[sids]
# FRR 8.4.4 cannot send these over FPM
sid = fc00:1::d46 End.DT46 vrf red
sid = fc00:1::d6  End.DT6 table 20
sid = fc00:1::e   End flavors psp
[fpm]
port = 2620
)");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::run) << r.text;
    ASSERT_EQ(r.cfg.sids.size(), 3u);
    EXPECT_EQ(rib::to_string(r.cfg.sids[0].sid), "fc00:1::d46/128");
    EXPECT_EQ(r.cfg.sids[0].local.action, rib::behavior::end_dt46);
    EXPECT_EQ(r.cfg.sids[0].local.vrf_name, "red");
    EXPECT_EQ(r.cfg.sids[1].local.table, 20u);
    EXPECT_EQ(r.cfg.sids[2].local.flavors, rib::flavor::psp);
    EXPECT_TRUE(run({}).cfg.sids.empty());

    // The command line's lines replace the file's, as for every repeatable key.
    const auto c = run({"-c", f.path(), "--sids.sid", "fc00:2::1 End.DT4 vrf blue"});
    ASSERT_EQ(c.what, action::run) << c.text;
    ASSERT_EQ(c.cfg.sids.size(), 1u);
    EXPECT_EQ(c.cfg.sids[0].local.vrf_name, "blue");
}

TEST(Config, InvalidSidLinesRefuseToStart) {
    temp_file f("[sids]\nsid = fc00:1::d46 End.DT46\n");
    auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, f.path() + ":2: sid 'fc00:1::d46 End.DT46': End.DT46 needs a VRF (table or vrf)");

    r = run({"--sids.sid", "fc00:1::1 End", "--sids.sid", "fc00:1::1/128 End.DT6 table 10"});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, "invalid sid 'fc00:1::1/128 End.DT6 table 10': sid fc00:1::1/128 is configured twice");

    temp_file outside("sid = fc00:1::1 End\n");
    r = run({"-c", outside.path()});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, outside.path() + ":1: 'sid = ...' outside [sids]: sid lines go in the [sids] section");
    temp_file wrong("[fpm]\nsid = fc00:1::1 End\n");
    r = run({"-c", wrong.path()});
    ASSERT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, wrong.path() + ":2: 'sid = ...' outside [sids]: sid lines go in the [sids] section");
}

TEST(Config, HelpAndVersion) {
    auto r = run({"--help"});
    EXPECT_EQ(r.what, action::help);
    EXPECT_NE(r.text.find("--fpm.resync-quiet-ms"), std::string::npos);
    EXPECT_NE(r.text.find("--vrf"), std::string::npos);
    r = run({"--version"});
    EXPECT_EQ(r.what, action::version);
    EXPECT_EQ(r.text.rfind("srv6d ", 0), 0u);
}

TEST(Config, SampleConfigParses) {
    // etc/srv6d.conf documents every key with its default: it must stay valid and default-equal.
    const std::string sample = std::string(SRV6D_FIXTURES) + "/../../etc/srv6d.conf";
    const auto r = run({"-c", sample});
    ASSERT_EQ(r.what, action::run) << r.text;
    const auto d = default_config();
    EXPECT_EQ(r.cfg.fpm_listen, d.fpm_listen);
    EXPECT_EQ(r.cfg.fpm_port, d.fpm_port);
    EXPECT_EQ(r.cfg.resync_quiet, d.resync_quiet);
    EXPECT_EQ(r.cfg.resync_max, d.resync_max);
    EXPECT_EQ(r.cfg.mgmt_socket, d.mgmt_socket);
    EXPECT_EQ(r.cfg.log_level, d.log_level);
    EXPECT_EQ(r.cfg.eal_args, d.eal_args);
    EXPECT_EQ(r.cfg.dataplane_enabled, d.dataplane_enabled);
    EXPECT_EQ(r.cfg.encap_source, d.encap_source);
    EXPECT_TRUE(r.cfg.vrfs.empty());
    EXPECT_TRUE(r.cfg.sids.empty());
}

}  // namespace
}  // namespace srv6d

namespace srv6d {
namespace SRV6D_UNITY_ID {

TEST(Config, DataplanePortsAndNeighbors) {
    temp_file f(R"([dataplane]
port = ce net_af_packet0,iface=veth-ce vrf=red mtu=1500
port = core net_ring0 ifindex=7 mtu=9000 tap=core0
punt-rate = 2000
punt-burst = 64
neighbor = core fc00:12::2 02:00:00:00:0b:02
neighbor = ce 10.1.0.2 02:00:00:00:ce:01
mbufs = 4095
)");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::run) << r.text;
    ASSERT_EQ(r.cfg.ports.size(), 2u);
    EXPECT_EQ(r.cfg.ports[0].name, "ce");
    EXPECT_EQ(r.cfg.ports[0].devargs, "net_af_packet0,iface=veth-ce");
    EXPECT_EQ(r.cfg.ports[0].vrf, "red");
    EXPECT_EQ(r.cfg.ports[0].ifname, "veth-ce");  // from iface=
    EXPECT_EQ(r.cfg.ports[1].ifindex, 7u);
    EXPECT_EQ(r.cfg.ports[1].mtu, 9000);
    EXPECT_EQ(r.cfg.ports[1].tap, "core0");
    EXPECT_EQ(r.cfg.ports[1].ifname, "core0") << "zebra knows a mirrored port by its TAP";
    EXPECT_EQ(r.cfg.punt_rate, 2000u);
    EXPECT_EQ(r.cfg.punt_burst, 64u);
    ASSERT_EQ(r.cfg.neighbors.size(), 2u);
    EXPECT_EQ(rib::to_string(r.cfg.neighbors[0].addr), "fc00:12::2");
    EXPECT_EQ(fwd::to_string(r.cfg.neighbors[1].mac), "02:00:00:00:ce:01");
    EXPECT_EQ(r.cfg.mbufs, 4095u);
}

// 802.1Q sub-ports: keys in place of devargs, the parent's MTU by default.
TEST(Config, DataplaneSubPorts) {
    temp_file f(R"([dataplane]
port = ce net_af_packet0,iface=veth-ce mtu=9000 tap=ce0
port = ce.100 vlan=100 parent=ce vrf=red tap=ce0.100
port = ce.200 parent=ce vlan=200 vrf=blue mtu=1500
neighbor = ce.100 10.1.0.2 02:00:00:00:ce:01
)");
    const auto r = run({"-c", f.path()});
    ASSERT_EQ(r.what, action::run) << r.text;
    ASSERT_EQ(r.cfg.ports.size(), 3u);
    const auto& s100 = r.cfg.ports[1];
    EXPECT_EQ(s100.vlan, 100);
    EXPECT_EQ(s100.parent, "ce");
    EXPECT_TRUE(s100.devargs.empty());
    EXPECT_EQ(s100.vrf, "red");
    EXPECT_EQ(s100.mtu, 9000) << "the parent's";
    EXPECT_EQ(s100.ifname, "ce0.100") << "zebra knows it by its mirror";
    EXPECT_EQ(r.cfg.ports[2].vlan, 200);
    EXPECT_EQ(r.cfg.ports[2].mtu, 1500);
    EXPECT_TRUE(r.cfg.ports[2].tap.empty());
}

TEST(Config, DataplaneSubPortErrors) {
    const std::pair<const char*, const char*> bad[] = {
        {"port = a net_null0\nport = a.1 vlan=0 parent=a", "vlan '0' is not a VLAN id from 1 to 4094"},
        {"port = a net_null0\nport = a.1 vlan=4095 parent=a", "vlan '4095'"},
        {"port = a net_null0\nport = a.1 vlan=x parent=a", "vlan 'x'"},
        {"port = a net_null0\nport = a.1 vlan=10", "needs both vlan=VID and parent=PORT"},
        {"port = a net_null0\nport = a.1 parent=a", "needs both vlan=VID and parent=PORT"},
        {"port = a net_null0 vlan=10", "without devargs"},
        {"port = a.1 vlan=10 parent=a\nport = a net_null0", "parent 'a' is no port configured before it"},
        {"port = a net_null0\nport = a.1 vlan=10 parent=b", "parent 'b' is no port configured before it"},
        {"port = a net_null0\nport = a.1 vlan=10 parent=a\nport = a.1.2 vlan=20 parent=a.1", "is a sub-port itself"},
        {"port = a net_null0\nport = a.1 vlan=10 parent=a\nport = a.2 vlan=10 parent=a", "VLAN 10 on a is a.1 already"},
        {"port = a net_null0 mtu=1500\nport = a.1 vlan=10 parent=a mtu=1600", "mtu 1600 larger than its parent's"},
        {"port = a net_null0\nport = a vlan=10 parent=a", "configured twice"},
    };
    for (const auto& [text, want] : bad) {
        temp_file f(std::string("[dataplane]\n") + text + "\n");
        const auto r = run({"-c", f.path()});
        EXPECT_EQ(r.what, action::error) << text;
        EXPECT_NE(r.text.find(want), std::string::npos) << text << " -> " << r.text;
    }
    // Two sub-ports of different parents may share a VLAN id; two parents, none.
    temp_file ok("[dataplane]\nport = a net_null0\nport = b net_null1\nport = a.10 vlan=10 parent=a\n"
                 "port = b.10 vlan=10 parent=b\n");
    EXPECT_EQ(run({"-c", ok.path()}).what, action::run);
}

TEST(Config, DataplaneErrorsNameTheLine) {
    const std::pair<const char*, const char*> bad[] = {
        {"port = ce", "a port is 'NAME DEVARGS"},
        {"port = ce net_null0 mtu=100", "mtu '100'"},
        {"port = ce net_null0 colour=blue", "unknown port option 'colour'"},
        {"port = a net_null0\nport = a net_null1", "configured twice"},
        {"port = a net_null0\nneighbor = a 10.0.0.300 02:00:00:00:00:01", "not an IPv4 or IPv6 address"},
        {"port = a net_null0\nneighbor = a 10.0.0.3 02:00:00:00:00", "not a MAC address"},
        {"port = a net_null0\nneighbor = b 10.0.0.3 02:00:00:00:00:01", "no such port"},
        {"mbufs = 10", "dataplane.mbufs"},
        {"punt-rate = 0", "dataplane.punt-rate"},
        {"idle-sleep = 100001", "dataplane.idle-sleep"},
        {"port = a net_null0 tap=averyveryverylongname", "at most 15 characters"},
    };
    for (const auto& [text, want] : bad) {
        temp_file f(std::string("[dataplane]\n") + text + "\n");
        const auto r = run({"-c", f.path()});
        EXPECT_EQ(r.what, action::error) << text;
        EXPECT_NE(r.text.find(want), std::string::npos) << text << " -> " << r.text;
    }
}

}  // namespace
}  // namespace srv6d

namespace srv6d {
namespace SRV6D_UNITY_ID {

TEST(Config, HostPathExampleParses) {
    // frr-conf/srv6d-host-path.conf is what users copy: it must stay valid.
    const auto r = run({"-c", std::string(SRV6D_FIXTURES) + "/../../frr-conf/srv6d-host-path.conf"});
    ASSERT_EQ(r.what, action::run) << r.text;
    ASSERT_EQ(r.cfg.ports.size(), 2u);
    EXPECT_EQ(r.cfg.ports[0].tap, "pe0");
    EXPECT_EQ(r.cfg.ports[1].mtu, 1600);
    EXPECT_TRUE(r.cfg.encap_source.has_value());
}

}  // namespace
}  // namespace srv6d

namespace srv6d {
namespace SRV6D_UNITY_ID {

TEST(Config, L3vpnPeExampleParses) {
    // frr-conf/srv6d-l3vpn-pe.conf pairs with frr-conf/frr10-l3vpn-pe.conf: users copy both.
    const auto r = run({"-c", std::string(SRV6D_FIXTURES) + "/../../frr-conf/srv6d-l3vpn-pe.conf"});
    ASSERT_EQ(r.what, action::run) << r.text;
    ASSERT_EQ(r.cfg.ports.size(), 3u);
    EXPECT_EQ(r.cfg.ports[0].tap, "tcr");
    EXPECT_EQ(r.cfg.ports[0].vrf, "red");
    EXPECT_EQ(r.cfg.ports[1].vrf, "blue");
    EXPECT_EQ(r.cfg.ports[2].mtu, 9000);
    EXPECT_TRUE(r.cfg.encap_source.has_value());
}

TEST(Config, VpwsPeExampleParses) {
    // frr-conf/srv6d-vpws-pe.conf is what tests/vm/vpws_test.sh runs and users copy.
    const auto r = run({"-c", std::string(SRV6D_FIXTURES) + "/../../frr-conf/srv6d-vpws-pe.conf"});
    ASSERT_EQ(r.what, action::run) << r.text;
    ASSERT_EQ(r.cfg.vpws.size(), 2u);
    EXPECT_EQ(r.cfg.vpws[0].port, "ac1");
    EXPECT_FALSE(r.cfg.vpws[0].reduced);
    EXPECT_EQ(r.cfg.vpws[1].port, "ac2.100");
    EXPECT_TRUE(r.cfg.vpws[1].reduced);
    ASSERT_EQ(r.cfg.sids.size(), 2u);
    EXPECT_EQ(r.cfg.sids[0].local.action, rib::behavior::end_dx2);
    EXPECT_EQ(r.cfg.sids[1].local.oif, 9100u);
}

TEST(Config, VpwsLinesAreChecked) {
    auto r = run({"--dataplane.port", "ce1 net_null0", "--dataplane.vpws", "pw ce1 fc00::1"});
    EXPECT_EQ(r.what, action::error);
    EXPECT_NE(r.text.find("invalid vpws 'pw ce1 fc00::1'"), std::string::npos) << r.text;
    r = run({"--dataplane.port", "ce1 net_null0", "--dataplane.vpws", "pw port=ce9 segs=fc00::1"});
    EXPECT_EQ(r.what, action::error);
    EXPECT_EQ(r.text, "vpws pw: port 'ce9' is no configured port or sub-port");
}

}  // namespace
}  // namespace srv6d
