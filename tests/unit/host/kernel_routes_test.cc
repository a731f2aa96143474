// host::kernel_route_keys against the real kernel: a child process in a network namespace of
// its own adds routes with iproute2 and reads them back, keyed as the FPM decoder keys zebra's.
#include "host/kernel_routes.hh"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>

namespace host {
namespace SRV6D_UNITY_ID {

rib::route_key key(rib::table_id t, const char* dst) {
    rib::route_key k;
    k.table = t;
    k.dst = *rib::parse_prefix(dst);
    return k;
}

// Runs `body` in a forked child inside a fresh network namespace; its exit status (0: ok).
template <typename F>
int in_netns(F body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (::unshare(CLONE_NEWNET) != 0 || std::system("ip link set lo up") != 0)
            ::_exit(100);
        ::_exit(body());
    }
    int st = 0;
    if (pid < 0 || ::waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

int add_routes() {
    return std::system("ip route add 192.0.2.0/24 dev lo table 100 && "
                       "ip route add 198.51.100.0/24 dev lo table 200 && "
                       "ip -6 route add 2001:db8::/32 dev lo table 1000 && "
                       "ip route add 203.0.113.0/24 dev lo table 100000 && "
                       "ip route add 10.9.0.0/16 dev lo") == 0;
}

// 0 when kernel_route_keys(tables) returns exactly `want`; 1..3 say what went wrong.
int expect_keys(const std::vector<rib::table_id>& tables, const std::set<rib::route_key>& want) {
    std::string error;
    const auto keys = kernel_route_keys(tables, error);
    if (!keys)
        return 1;
    const std::set<rib::route_key> got(keys->begin(), keys->end());
    if (got.size() != keys->size())
        return 2;  // a key twice
    return got == want ? 0 : 3;
}

TEST(KernelRoutes, KeysOfTheTablesAskedOnly) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (a network namespace)";
    EXPECT_EQ(in_netns([] {
                  if (!add_routes())
                      return 10;
                  // Tables beyond 255 (RTA_TABLE), both families, nothing of other tables.
                  return expect_keys({100, 1000, 100000},
                                     {key(100, "192.0.2.0/24"), key(1000, "2001:db8::/32"),
                                      key(100000, "203.0.113.0/24")});
              }),
              0);
}

TEST(KernelRoutes, ManyTablesInOneDumpGiveTheSameKeys) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (a network namespace)";
    EXPECT_EQ(in_netns([] {
                  if (!add_routes())
                      return 10;
                  std::vector<rib::table_id> many = {200, 1000};
                  for (rib::table_id t = 300; t < 320; ++t)
                      many.push_back(t);
                  return expect_keys(many, {key(200, "198.51.100.0/24"), key(1000, "2001:db8::/32")});
              }),
              0);
}

TEST(KernelRoutes, AnEmptyTableGivesNoKeys) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (a network namespace)";
    EXPECT_EQ(in_netns([] { return expect_keys({4242}, {}); }), 0);
}

}  // namespace
}  // namespace host
