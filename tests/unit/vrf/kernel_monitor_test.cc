#include "vrf/kernel_monitor.hh"

#include <gtest/gtest.h>
#include <poll.h>

#include "tests/unit/vrf/netns.hh"

namespace vrf {
namespace SRV6D_UNITY_ID {

bool readable(int fd, int timeout_ms) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms) == 1;
}

// The real socket path in a fresh netns: the dump finds no VRF device (this kernel has no VRF
// driver), notifications for other links arrive on fd() and change nothing in the registry.
TEST(KernelMonitor, RunsAndFindsNoVrfInAFreshNetns) {
    if (!test::is_root())
        GTEST_SKIP() << test::needs_root;
    const std::string err = test::in_fresh_netns([] {
        test::failures f;
        registry reg;
        kernel_monitor mon(reg);
        f.expect(mon.fd() == -1, "no fd before start()");
        const std::string started = mon.start();
        if (!started.empty())
            return "start(): " + started;
        f.expect(mon.fd() >= 0, "fd after start()");
        f.expect(mon.vrf_devices() == 0, "no VRF device in a fresh netns");
        f.expect(reg.size() == 1 && reg.version() == 0, "registry holds only the default VRF, unchanged");
        f.expect(mon.process_events() == 0, "nothing pending right after start");

        if (test::sh("ip link add tm-v0 type veth peer name tm-v1") != 0)
            return std::string("cannot create a veth pair");
        f.expect(readable(mon.fd(), 2000), "link notification makes fd() readable");
        f.expect(mon.process_events() >= 2, "both veth ends seen as link events");
        test::sh("ip link add tm-br0 type bridge");
        test::sh("ip link set tm-v0 master tm-br0");
        if (readable(mon.fd(), 2000))
            mon.process_events();
        f.expect(mon.vrf_devices() == 0, "a bridge and its port are no VRF");
        f.expect(reg.size() == 1 && reg.version() == 0, "registry untouched by non-VRF links");
        f.expect(mon.events() >= 3, "events counted: " + std::to_string(mon.events()));

        // Where the kernel has a VRF driver (not this one), the whole path is checked too.
        if (test::sh("ip link add tm-vrf10 type vrf table 10") == 0) {
            test::sh("ip link set tm-v1 master tm-vrf10");
            while (readable(mon.fd(), 500))
                mon.process_events();
            const vrf_info* v = reg.find("tm-vrf10");
            f.expect(v && v->table == 10 && v->state == vrf_state::active, "kernel VRF device bound");
            f.expect(v && v->members.size() == 1 && v->members[0].name == "tm-v1", "kernel VRF member seen");
            test::sh("ip link del tm-vrf10");
            while (readable(mon.fd(), 500))
                mon.process_events();
            f.expect(reg.find("tm-vrf10") == nullptr, "kernel VRF device gone");
        }
        return f.text;
    });
    EXPECT_EQ(err, "");
}

// Read-only in this process's own netns (dump + subscribe), so leak checkers see the whole
// libnl lifecycle; the netns tests run in children that exit without one.
TEST(KernelMonitor, StartsAndStopsInTheCurrentNetns) {
    registry reg;
    {
        kernel_monitor mon(reg);
        ASSERT_EQ(mon.start(), "");
        EXPECT_GE(mon.fd(), 0);
        EXPECT_EQ(mon.start(), "kernel VRF monitor already started");
        mon.process_events();
        EXPECT_EQ(mon.vrf_devices() + 1, reg.size());  // the host's VRF devices, if any, plus default
    }
    EXPECT_TRUE(reg.lookup_table(254).active());
}

TEST(KernelMonitor, ProcessBeforeStartIsHarmless) {
    registry reg;
    kernel_monitor mon(reg);
    EXPECT_EQ(mon.process_events(), 0u);
    EXPECT_EQ(mon.fd(), -1);
}

}  // namespace
}  // namespace vrf
