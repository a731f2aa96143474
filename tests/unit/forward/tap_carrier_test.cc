// The TAP mirror's carrier (forward/control/tap_carrier.hh) on a real multi-queue TAP, opened
// here the way net_tap opens its queues: the carrier goes off and on, the interface stays
// administratively up with its address, and the carrier's own queue takes none of the TAP's
// traffic between changes.
#include "forward/control/tap_carrier.hh"

#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace fwd {
namespace SRV6D_UNITY_ID {

// A TAP queue as net_tap opens it (IFF_MULTI_QUEUE); -1 where there is no /dev/net/tun.
int tap_queue(const std::string& name, short extra = IFF_MULTI_QUEUE) {
    const int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
    ifr.ifr_flags = static_cast<short>(IFF_TAP | IFF_NO_PI | extra);
    if (::ioctl(fd, TUNSETIFF, &ifr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

short if_flags(const std::string& name) {
    const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
    const int rc = ::ioctl(s, SIOCGIFFLAGS, &ifr);
    ::close(s);
    return rc == 0 ? ifr.ifr_flags : 0;
}

bool if_ioctl(const std::string& name, unsigned long req, ifreq& ifr) {
    const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    std::strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
    const int rc = ::ioctl(s, req, &ifr);
    ::close(s);
    return rc == 0;
}

std::string ip4_of(const std::string& name) {
    ifreq ifr{};
    ifr.ifr_addr.sa_family = AF_INET;
    if (!if_ioctl(name, SIOCGIFADDR, ifr))
        return "";
    char b[INET_ADDRSTRLEN];
    return inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&ifr.ifr_addr)->sin_addr, b, sizeof b);
}

// netif_carrier_ok() at once (IFF_LOWER_UP does not fit SIOCGIFFLAGS's short).
bool carrier(const std::string& name) {
    std::string v;
    std::ifstream("/sys/class/net/" + name + "/carrier") >> v;
    return v == "1";
}

size_t tx_queues(const std::string& name) {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/sys/class/net/" + name + "/queues"))
        n += e.path().filename().string().starts_with("tx-");
    return n;
}

// IFF_RUNNING follows the carrier through the kernel's linkwatch (up to a second for a loss).
bool running_becomes(const std::string& name, bool want) {
    for (int i = 0; i < 300; ++i) {
        if (((if_flags(name) & IFF_RUNNING) != 0) == want)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

TEST(TapCarrier, CarrierOffAndOnLeavesAdminStateAndAddress) {
    const std::string name = "s6tc" + std::to_string(::getpid() % 100000);
    const int pmd_q0 = tap_queue(name);
    if (pmd_q0 < 0)
        GTEST_SKIP() << "no /dev/net/tun or no CAP_NET_ADMIN";
    const int pmd_q1 = tap_queue(name);  // the PMD's second queue (a second worker)
    ASSERT_GE(pmd_q1, 0);
    ifreq ifr{};
    ifr.ifr_flags = IFF_UP;
    ASSERT_TRUE(if_ioctl(name, SIOCSIFFLAGS, ifr));  // the operator's `ip link set up`
    ifr = {};
    auto* sin = reinterpret_cast<sockaddr_in*>(&ifr.ifr_addr);
    sin->sin_family = AF_INET;
    inet_pton(AF_INET, "192.0.2.1", &sin->sin_addr);
    ASSERT_TRUE(if_ioctl(name, SIOCSIFADDR, ifr));
    ASSERT_TRUE(running_becomes(name, true));
    ASSERT_EQ(tx_queues(name), 2u);

    tap_carrier c(name);
    std::string err;
    ASSERT_TRUE(c.set(false, err)) << err;
    EXPECT_FALSE(carrier(name)) << "carrier still on";
    EXPECT_TRUE(running_becomes(name, false)) << "still RUNNING: NO-CARRIER not shown";
    EXPECT_NE(if_flags(name) & IFF_UP, 0) << "admin state changed";
    EXPECT_EQ(ip4_of(name), "192.0.2.1") << "the address went";
    EXPECT_EQ(tx_queues(name), 2u) << "the carrier's queue stayed attached";

    for (int flap = 0; flap < 3; ++flap) {
        ASSERT_TRUE(c.set(true, err)) << err;
        EXPECT_TRUE(carrier(name));
        EXPECT_TRUE(running_becomes(name, true));
        ASSERT_TRUE(c.set(false, err)) << err;
        EXPECT_FALSE(carrier(name));
        ASSERT_TRUE(c.set(true, err)) << err;
    }
    EXPECT_TRUE(running_becomes(name, true));
    EXPECT_NE(if_flags(name) & IFF_UP, 0);
    EXPECT_EQ(ip4_of(name), "192.0.2.1");
    EXPECT_EQ(tx_queues(name), 2u);
    ::close(pmd_q1);
    ::close(pmd_q0);
}

TEST(TapCarrier, NotAMultiQueueTapIsAnError) {
    const std::string name = "s6td" + std::to_string(::getpid() % 100000);
    const int q = tap_queue(name, 0);
    if (q < 0)
        GTEST_SKIP() << "no /dev/net/tun or no CAP_NET_ADMIN";
    tap_carrier c(name);
    std::string err;
    EXPECT_FALSE(c.set(false, err));
    EXPECT_NE(err.find("TUNSETIFF"), std::string::npos) << err;
    ::close(q);
    tap_carrier gone("s6t-no-such");
    EXPECT_FALSE(gone.set(false, err));  // TUNSETIFF would create it: a TAP nobody asked for
    EXPECT_EQ(if_nametoindex("s6t-no-such"), 0u);
}

}  // namespace SRV6D_UNITY_ID
}  // namespace fwd
