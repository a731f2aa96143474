#include "vrf/encap_source.hh"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vrf {
namespace SRV6D_UNITY_ID {

rib::ip6_addr a6(const char* s) {
    auto a = rib::parse_ip6(s);
    if (!a)
        throw std::invalid_argument(s);  // a typo in the test itself
    return *a;
}

tunsrc_reading kernel_says(std::optional<const char*> a) {
    tunsrc_reading r;
    r.ok = true;
    if (a)
        r.addr = a6(*a);
    return r;
}

tunsrc_reading kernel_fails(std::string why) {
    tunsrc_reading r;
    r.error = std::move(why);
    return r;
}

rib::seg6_encap encap(std::optional<const char*> src = std::nullopt) {
    rib::seg6_encap e;
    e.segments = {a6("fc00:0:2:e000::")};
    if (src)
        e.source = a6(*src);
    return e;
}

// Every tier set: each one only shows when all above it are gone.
TEST(EncapSource, Precedence) {
    encap_source_resolver r;
    r.set_configured(a6("fc00:c::1"));
    r.set_kernel_tunsrc(kernel_says("fc00:0:1::1"));

    // 1. the route's own source
    encap_src s = r.resolve(encap("fc00:a::1"));
    EXPECT_EQ(s.addr, a6("fc00:a::1"));
    EXPECT_EQ(s.origin, encap_origin::route);
    // 2. kernel tunsrc (FRR's global source-address)
    s = r.resolve(encap());
    EXPECT_EQ(s.origin, encap_origin::kernel_tunsrc);
    EXPECT_EQ(to_string(s), "fc00:0:1::1 (kernel tunsrc, from FRR's source-address or ip sr tunsrc set)");
    EXPECT_EQ(r.global(), s);
    // 3. srv6d config
    r.set_kernel_tunsrc(kernel_says(std::nullopt));
    s = r.resolve(encap());
    EXPECT_EQ(s.origin, encap_origin::config);
    EXPECT_EQ(to_string(s), "fc00:c::1 (srv6d config encap-source)");
    // none
    r.set_configured(std::nullopt);
    s = r.resolve(encap());
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.origin, encap_origin::none);
    EXPECT_EQ(to_string(s), "none (kernel tunsrc is unset (::), no encap-source configured)");
    // ... while a route with its own source still resolves.
    EXPECT_EQ(r.resolve(encap("fc00:a::1")).origin, encap_origin::route);
}

TEST(EncapSource, RouteSourceOfAllZerosIsNoSource) {
    encap_source_resolver r;
    r.set_configured(a6("fc00:c::1"));
    EXPECT_EQ(r.resolve(encap("::")).origin, encap_origin::config);
}

TEST(EncapSource, KernelBeatsConfigWhenBothSet) {
    encap_source_resolver r;
    r.set_kernel_tunsrc(kernel_says("fc00:0:1::1"));
    r.set_configured(a6("fc00:c::1"));  // order of arrival does not matter
    EXPECT_EQ(r.global().origin, encap_origin::kernel_tunsrc);
}

TEST(EncapSource, NothingReadYet) {
    encap_source_resolver r;
    EXPECT_FALSE(r.global().ok());
    EXPECT_EQ(r.global().detail, "kernel tunsrc not read yet, no encap-source configured");
    EXPECT_EQ(r.version(), 0u);
}

TEST(EncapSource, KernelReadErrors) {
    encap_source_resolver r;
    r.set_configured(a6("fc00:c::1"));
    // Failing from the start: the kernel tier is empty, and says why.
    EXPECT_FALSE(r.set_kernel_tunsrc(kernel_fails("generic netlink family SEG6 not found")));
    EXPECT_EQ(r.global().origin, encap_origin::config);
    r.set_configured(std::nullopt);
    EXPECT_EQ(r.global().detail, "kernel tunsrc unreadable: generic netlink family SEG6 not found, "
                                 "no encap-source configured");
    // After a good read, a failed re-read keeps the value: no rewrite for a transient error.
    EXPECT_TRUE(r.set_kernel_tunsrc(kernel_says("fc00:0:1::1")));
    const uint64_t v = r.version();
    EXPECT_FALSE(r.set_kernel_tunsrc(kernel_fails("no reply within 1 s")));
    EXPECT_EQ(r.version(), v);
    EXPECT_EQ(r.global().addr, a6("fc00:0:1::1"));
    EXPECT_EQ(r.global().detail, "kernel tunsrc, from FRR's source-address or ip sr tunsrc set; last re-read failed: no reply within 1 s");
    EXPECT_FALSE(r.set_kernel_tunsrc(kernel_says("fc00:0:1::1")));
    EXPECT_EQ(r.global().detail, "kernel tunsrc, from FRR's source-address or ip sr tunsrc set");
}

TEST(EncapSource, VersionMovesWhenTheAddressOrOriginChanges) {
    encap_source_resolver r;
    const uint64_t v0 = r.version();
    EXPECT_TRUE(r.set_configured(a6("fc00:c::1")));
    EXPECT_EQ(r.version(), v0 + 1);
    EXPECT_FALSE(r.set_configured(a6("fc00:c::1")));
    EXPECT_EQ(r.version(), v0 + 1);
    EXPECT_TRUE(r.set_kernel_tunsrc(kernel_says("fc00:c::1")));  // same address, new origin
    EXPECT_EQ(r.version(), v0 + 2);
    EXPECT_FALSE(r.set_configured(a6("fc00:c::2")));  // shadowed by the kernel: no header changes
    EXPECT_EQ(r.version(), v0 + 2);
    EXPECT_TRUE(r.set_kernel_tunsrc(kernel_says("fc00:0:1::1")));
    EXPECT_EQ(r.version(), v0 + 3);
    EXPECT_TRUE(r.set_kernel_tunsrc(kernel_says(std::nullopt)));
    EXPECT_EQ(r.global().addr, a6("fc00:c::2"));
    EXPECT_EQ(r.version(), v0 + 4);
}

TEST(EncapSource, UnusableConfiguredSourceIsSkippedWithAReason) {
    encap_source_resolver r;
    r.set_configured(a6("fe80::1"));
    EXPECT_FALSE(r.global().ok());
    EXPECT_EQ(r.global().detail, "kernel tunsrc not read yet, encap-source rejected: fe80::1 is link-local: "
                                 "not routable back to this node");
}

TEST(EncapSource, CheckAddress) {
    EXPECT_FALSE(check_encap_source(a6("fc00:0:1::1")));
    EXPECT_FALSE(check_encap_source(a6("2001:db8::1")));
    EXPECT_EQ(check_encap_source(a6("::")), ":: is the unspecified address");
    EXPECT_TRUE(check_encap_source(a6("::1")));
    EXPECT_TRUE(check_encap_source(a6("ff02::1")));
    EXPECT_TRUE(check_encap_source(a6("fe80::1")));
    EXPECT_TRUE(check_encap_source(a6("febf::1")));
    EXPECT_FALSE(check_encap_source(a6("fec0::1")));
    EXPECT_TRUE(check_encap_source(a6("::ffff:10.0.0.1")));
}

TEST(EncapSource, OriginNames) {
    EXPECT_EQ(to_string(encap_origin::kernel_tunsrc), "kernel-tunsrc");
    EXPECT_EQ(to_string(encap_origin::none), "none");
}

}  // namespace
}  // namespace vrf
