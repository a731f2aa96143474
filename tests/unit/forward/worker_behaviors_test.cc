// The behavior contract through the real worker, GENERATED from it: one test per row of
// rib::behavior_table() with a datapath handler and per flavor its row takes (and none), on real
// DPDK ports (net_ring), with tables from the real compiler. The expected frames follow from
// RFC 8986 (§4.1-4.9, flavors §4.16) and RFC 9800, written out field by field from what the row
// says: where the packet goes (its adjacency, else a lookup in its VRF) and what it
// decapsulates. A row without a handler, or a flavor its row does not take, must be refused
// at compile time and its packets dropped as `sid_refused`, never `sid_unsupported`.
// Also here: per-SID counters belong to the SID, not to a recycled nexthop index.
#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "endpoint_pkt.hh"
#include "rib/behaviors.hh"
#include "rib/rib.hh"
#include "fib/control/compiler.hh"
#include "forward/datapath/flow_hash.hh"
#include "forward/datapath/worker.hh"
#include "tests/unit/forward/headend_util.hh"
#include "worker_env.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using test::a6;
using test::bytes;
using test::inner4;
using test::inner6;
using test::ip6_packet;
using test::srh;
using wtest::close_ring_port;
using wtest::eth;
using wtest::open_ring_port;
using wtest::ring_port;
using wtest::ttl_minus_one;
namespace sp = rib::sid_param;

constexpr uint16_t t_ipv4 = 0x0800, t_ipv6 = 0x86dd;
constexpr const char* encap_src = "fc00:0:1::1";
// End.B6.Encaps's policy: two SIDs, the first routed through the core.
constexpr const char* policy_sid1 = "fc00:0:200::b";
constexpr const char* policy_sid2 = "fc00:0:2::c";
const mac_addr mac_core_port{{0x02, 0, 0, 0, 0x12, 0x01}};
const mac_addr mac_ce_port{{0x02, 0, 0, 0, 0x11, 0x01}};
const mac_addr mac_ce2_port{{0x02, 0, 0, 0, 0x13, 0x01}};
const mac_addr mac_p{{0x02, 0, 0, 0, 0x0b, 0x02}};    // fc00:12::2 behind core (default VRF)
const mac_addr mac_ce1{{0x02, 0, 0, 0, 0xce, 0x01}};  // 10.1.0.2 / fd01::2 behind ce (VRF red)
const mac_addr mac_ce2{{0x02, 0, 0, 0, 0xce, 0x02}};  // 10.13.0.2 / fd13::2 behind ce2 (default)
const mac_addr mac_remote{{0x02, 0, 0, 0, 0xee, 0xee}};
constexpr uint32_t if_ce = 11, if_core = 12, if_ce2 = 13;
constexpr rib::table_id red_table = 10;

// Where a packet leaves: the port and the neighbor's MAC.
struct exit_to {
    const ring_port* port;
    mac_addr mac;
    mac_addr own;
};

// One packet in, and what must happen to it.
struct shot {
    std::string what;
    bytes in;                           // L3, arrives on core
    std::optional<drop_reason> drop;    // or:
    const ring_port* port = nullptr;    // leaves here
    bytes out;                          // this frame
};

// A fixture of three ports: core (default VRF, the SRv6 side), ce (VRF red, table 10), ce2
// (default VRF, an IP side). Local SIDs are added by the tests.
class behaviors_fixture {
public:
    explicit behaviors_fixture(uint32_t sid_counter_slots = fib::max_sid_counters) : c(rcu, sid_counter_slots) {
        EXPECT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{"red", red_table, {}, std::nullopt}).ok());
        EXPECT_TRUE(src.set_configured(a6(encap_src)));  // End.B6.Encaps's outer source
        red = reg.find("red")->id;
        core = make_port("core");
        ce = make_port("ce");
        ce2 = make_port("ce2");
        ports = {
            {core.id, vrf::default_vrf_id, 1600, true, if_core, mac_core_port},
            {ce.id, red, 1500, true, if_ce, mac_ce_port},
            {ce2.id, vrf::default_vrf_id, 1500, true, if_ce2, mac_ce2_port},
        };
        ns = {
            {core.id, *rib::parse_addr("fc00:12::2"), mac_p},  {ce.id, *rib::parse_addr("10.1.0.2"), mac_ce1},
            {ce.id, *rib::parse_addr("fd01::2"), mac_ce1},     {ce2.id, *rib::parse_addr("10.13.0.2"), mac_ce2},
            {ce2.id, *rib::parse_addr("fd13::2"), mac_ce2},
        };
        (void)adj.exchange(adj_view::create(ports, ns, 1, {}));
        const std::string n = std::to_string(seq++);
        hdr = headend_hdr_pool_create(("wb_hdr" + n).c_str(), 63, 0);
        resolve = resolve_ring_create(("wb_res" + n).c_str(), 8, 0);
        EXPECT_NE(hdr, nullptr);
        EXPECT_NE(resolve, nullptr);
        counters = std::make_unique<worker_counters>();
        w = std::make_unique<worker>(std::vector<rx_queue>{{core.id, 0}, {ce.id, 0}, {ce2.id, 0}}, 0,
                                     published{&c.cell(), &adj}, hdr, *counters, resolve);
        // default VRF: the core's next SIDs, ce2's hosts
        add(route("fc00:12::/64", nullptr, if_core));
        add(route("fc00:0:2::/48", "fc00:12::2", if_core));
        add(route("fc00:0:200::/48", "fc00:12::2", if_core));
        add(route("10.13.0.0/24", nullptr, if_ce2));
        add(route("fd13::/64", nullptr, if_ce2));
        // VRF red: its hosts, and the same next SIDs through ce (End.T looks them up here)
        add(route("10.1.0.0/24", nullptr, if_ce, red_table));
        add(route("fd01::/64", nullptr, if_ce, red_table));
        add(route("fc00:0:2::/48", "fd01::2", if_ce, red_table));
        add(route("fc00:0:200::/48", "fd01::2", if_ce, red_table));
    }

    ~behaviors_fixture() {
        for (ring_port* p : {&core, &ce, &ce2})
            close_ring_port(*p);
        w.reset();
        rte_ring_free(resolve);
        adj_view::destroy(adj.exchange(nullptr));
        rte_mempool_free(hdr);
    }

    static rib::route route(const char* dst, const char* gw, uint32_t ifindex, rib::table_id t = rib::main_table) {
        rib::route r;
        r.key.table = t;
        r.key.dst = *rib::parse_prefix(dst);
        r.protocol = rib::proto::bgp;
        rib::nexthop n;
        if (gw)
            n.gateway = *rib::parse_addr(gw);
        n.ifindex = ifindex;
        r.nexthops = {n};
        return r;
    }
    static rib::route sid_route(const char* prefix, const rib::seg6local& l, uint32_t ifindex) {
        rib::route r = route(prefix, nullptr, ifindex);
        r.protocol = rib::proto::kernel;
        r.nexthops[0].local = l;
        return r;
    }
    void add(const rib::route& rt) { r.upsert_route(rt); }
    void compile() { c.compile(r, reg, src); }

    // Sends each shot and checks its fate: one frame out where expected, nothing elsewhere, or
    // the drop counted under its reason.
    void fire(const shot& s) {
        SCOPED_TRACE(s.what);
        const uint64_t before = s.drop ? dropped(*s.drop) : 0;
        rte_mbuf* m = test::mbuf_of(eth(mac_core_port, mac_remote, t_ipv6, s.in));
        ASSERT_NE(m, nullptr);
        ASSERT_EQ(rte_ring_enqueue(core.rx, m), 0);
        w->poll();
        for (ring_port* p : {&core, &ce, &ce2}) {
            const auto got = wtest::out(*p);
            if (!s.drop && p == s.port) {
                ASSERT_EQ(got.size(), 1u) << "port " << p->id << "; drops: " << drops();
                EXPECT_EQ(test::hex(got[0]), test::hex(s.out));
            } else {
                EXPECT_TRUE(got.empty()) << "a frame out of port " << p->id;
            }
        }
        if (s.drop) {
            EXPECT_EQ(dropped(*s.drop), before + 1) << "drops: " << drops();
        }
    }

    uint64_t dropped(drop_reason why) const { return counters->drops[static_cast<size_t>(why)].get(); }
    std::string drops() const { return wtest::drop_summary(*counters); }
    const fib::compiled_nh& nh_of(const char* prefix) const {
        rib::route_key k;
        k.dst = *rib::parse_prefix(prefix);
        return c.current()->nexthop(c.find(k)->nh);
    }

    // Adds an 802.1Q sub-port (srv6d's port `id`, VLAN `vid` on ce) and publishes the ports again.
    void add_sub_port(uint16_t id, uint16_t vid, uint32_t ifindex) {
        port_info sp{id, red, 1500, true, ifindex, mac_ce_port};
        sp.parent = ce.id;
        sp.vlan = vid;
        ports.push_back(sp);
        adj_view::destroy(adj.exchange(adj_view::create(ports, ns, 2, {})));
    }

    static inline int seq = 0;
    std::vector<port_info> ports;
    std::vector<neighbor> ns;
    fib::qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c;
    fib::rcu_cell<adj_view> adj;
    vrf::vrf_id red = 0;
    ring_port core, ce, ce2;
    rte_mempool* hdr = nullptr;
    rte_ring* resolve = nullptr;
    std::unique_ptr<worker_counters> counters;
    std::unique_ptr<worker> w;

private:
    static ring_port make_port(const char* name) {
        return open_ring_port(std::string("wb_") + name + std::to_string(seq++));
    }
};

// --- the generated cases

struct row_flavor {
    const rib::behavior_info* row;
    uint32_t flavor;   // one rib::flavor bit, or 0
    bool red = false;  // End.B6.Encaps's row: its policy by H.Encaps.Red (End.B6.Encaps.Red)
};

void PrintTo(const row_flavor& r, std::ostream* os) {
    *os << r.row->name << (r.red ? ".Red" : "") << (r.flavor ? " + " : "") << rib::flavor_name(r.flavor);
}

// "End_X_usd", "uN" (End with NEXT-C-SID, RFC 9800's name), "End_T_next_csid".
std::string case_name(const ::testing::TestParamInfo<row_flavor>& i) {
    const bool csid_named = i.param.flavor == rib::flavor::next_csid && !i.param.row->csid_name.empty();
    std::string n(csid_named ? i.param.row->csid_name : i.param.row->name);
    if (i.param.red)
        n += "_Red";
    if (i.param.flavor && !csid_named)
        n += "_" + std::string(rib::flavor_name(i.param.flavor));
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return n;
}

// Every row, with no flavor and with each flavor bit `pick` says.
template <class Pick>
std::vector<row_flavor> rows_and(Pick pick) {
    std::vector<row_flavor> v;
    for (const auto& row : rib::behavior_table()) {
        for (uint32_t f = 0; f <= rib::flavor::next_csid; f = f ? f << 1 : rib::flavor::psp)
            if (pick(row, f))
                v.push_back({&row, f});
    }
    return v;
}

constexpr const char* sid_addr = "fc00:0:1::e";     // classic SIDs: a /128
constexpr const char* csid_block = "fc00:0:100::";  // NEXT-C-SID SIDs: a /48 (F3216)
constexpr const char* next_sid = "fc00:0:2::1";
constexpr const char* sender = "fc00:0:9::1";

// The SID a row needs, from the row: its VRF's table in the attribute the row names, its
// adjacency (End.X to the core's neighbor; End.DX* to ce's) with its interface.
rib::seg6local sid_for(const rib::behavior_info& row, uint32_t flavor, bool red = false) {
    rib::seg6local l;
    l.action = row.action;
    l.flavors = flavor;  // NEXT-C-SID lengths not given: the row's defaults (F3216)
    const bool to_core = row.handler == rib::dp_handler::next_segment;
    if (row.adjacency == sp::nh6)
        l.nh6 = a6(to_core ? "fc00:12::2" : "fd01::2");
    if (row.adjacency == sp::nh4)
        l.nh4 = test::a4("10.1.0.2");
    if (row.adjacency)
        l.oif = to_core ? if_core : if_ce;
    if (row.vrf == rib::vrf_attr::table)
        l.table = red_table;
    if (row.vrf == rib::vrf_attr::vrftable)
        l.vrftable = red_table;
    if (row.allowed() & sp::srh && !(row.allowed() & (sp::nh4 | sp::nh6)))
        l.srh = rib::seg6_encap{red ? rib::encap_mode::encap_red : rib::encap_mode::encap,
                                {a6(policy_sid1), a6(policy_sid2)}, std::nullopt, {}};
    if (row.required[0] & sp::oif)
        l.oif = if_ce;
    return l;
}

// What the RFC says happens to each packet at a SID of this row with this flavor.
class expectations {
public:
    expectations(const behaviors_fixture& f, const rib::behavior_info& row, uint32_t flavor, bool red = false)
        : _f(f), _row(row), _flavor(flavor), _red(red) {}

    std::vector<shot> shots() const {
        std::vector<shot> v;
        if (_row.handler == rib::dp_handler::next_segment)
            next_segment(v);
        else if (_row.handler == rib::dp_handler::b6_encaps)
            b6_encaps(v);
        else
            decap(v);
        return v;
    }

    const char* da() const { return csid() ? csid_block : sid_addr; }

private:
    bool csid() const { return _flavor == rib::flavor::next_csid; }
    bool in_red() const { return _row.binds_vrf(); }

    // After the behavior: to the row's adjacency, else a lookup in its VRF (End: the SID's own,
    // the default; End.T, End.DT*: red). The destinations below route as the fixture says.
    exit_to out_ipv6_outer() const {
        if (_row.adjacency || !in_red())
            return {&_f.core, mac_p, mac_core_port};
        return {&_f.ce, mac_ce1, mac_ce_port};
    }
    exit_to out_inner() const {
        if (_row.adjacency)  // End.X: the core neighbor; End.DX*: ce's
            return _row.handler == rib::dp_handler::next_segment ? exit_to{&_f.core, mac_p, mac_core_port}
                                                                 : exit_to{&_f.ce, mac_ce1, mac_ce_port};
        if (in_red())
            return {&_f.ce, mac_ce1, mac_ce_port};
        return {&_f.ce2, mac_ce2, mac_ce2_port};
    }
    // An inner packet of `v4` family whose destination routes where out_inner() says; to an
    // adjacency, one that routes nowhere (the adjacency, not a lookup, must carry it).
    test::layer inner(bool v4) const {
        if (_row.adjacency)
            return v4 ? inner4("10.9.0.1", "10.77.0.9") : inner6("fd09::1", "fd77::9");
        if (in_red())
            return v4 ? inner4("10.9.0.1", "10.1.0.2") : inner6("fd09::1", "fd01::2");
        return v4 ? inner4("10.9.0.1", "10.13.0.2") : inner6("fd09::1", "fd13::2");
    }
    shot to(std::string what, bytes in, const exit_to& x, uint16_t type, const bytes& l3) const {
        return {std::move(what), std::move(in), std::nullopt, x.port, eth(x.mac, x.own, type, l3)};
    }
    static shot dropped(std::string what, bytes in, drop_reason r) { return {std::move(what), std::move(in), r, nullptr, {}}; }

    // RFC 8986 §4.1-4.3 with the flavors of §4.16 and RFC 9800.
    void next_segment(std::vector<shot>& v) const {
        const test::layer in6 = inner6("fd09::1", "fd01::2");
        if (csid()) {
            // RFC 9800 §4.1.1: the argument (the next C-SID, 0x0200) shifts into the node's
            // place; hop limit - 1; no SRH needed.
            const bytes in = ip6_packet(64, sender, "fc00:0:100:200::", {in6});
            v.push_back(to("shift", in, out_ipv6_outer(), t_ipv6, ip6_packet(63, sender, "fc00:0:200::", {in6})));
            return;
        }
        // S12-S15: SL 1 -> 0, DA = Segment List[0], hop limit - 1; PSP (§4.16.1) then pops the SRH.
        const bytes in = ip6_packet(64, sender, sid_addr, {srh(1, {next_sid, sid_addr}), in6});
        bytes want = _flavor == rib::flavor::psp ? ip6_packet(63, sender, next_sid, {in6})
                                                 : ip6_packet(63, sender, next_sid, {srh(0, {next_sid, sid_addr}), in6});
        v.push_back(to("SL 1 -> 0", in, out_ipv6_outer(), t_ipv6, want));
        // S02-S04 at SL 0: the upper layer is this node's. USD (§4.16.3) decapsulates an inner
        // IPv4/IPv6 packet and sends it on (End: lookup; End.X: its adjacency, S03; End.T:
        // lookup in T); without USD, srv6d terminates no upper layer: dropped. USP (§4.16.2)
        // pops the SRH first, then the same.
        for (const bool v4 : {true, false}) {
            const test::layer i = inner(v4);
            const bytes last = ip6_packet(64, sender, sid_addr, {srh(0, {sid_addr, sender}), i});
            const std::string what = std::string("SL 0, inner IPv") + (v4 ? "4" : "6");
            if (_flavor == rib::flavor::usd)
                v.push_back(to(what, last, out_inner(), v4 ? t_ipv4 : t_ipv6, ttl_minus_one(i.b)));
            else
                v.push_back(dropped(what, last, drop_reason::srh_sl_zero));
        }
    }

    // RFC 8986 §4.13: End's S01-S10 (SL - 1, the next SID in the DA, hop limit - 1; NEXT-C-SID:
    // the shift), then S11-S15: the policy's outer header with its SRH (RFC 8986 §5.1), from the
    // configured source, traffic class and flow label from the packet (docs/dataplane-headend.md),
    // the template's hop limit, out to its first SID. End.B6.Encaps.Red (§4.14): the same with
    // H.Encaps.Red's header (§5.2: the first SID only in the destination, the SRH the rest).
    void b6_encaps(std::vector<shot>& v) const {
        const test::layer in6 = inner6("fd09::1", "fd01::2");
        auto pushed = [red = _red](const bytes& after) {
            test::ref_encap r;
            r.mode = red ? rib::encap_mode::encap_red : rib::encap_mode::encap;
            r.sids = {a6(policy_sid1), a6(policy_sid2)};
            r.src = a6(encap_src);
            r.tc = static_cast<uint8_t>((after[0] << 4) | (after[1] >> 4));
            r.flow_label = flow_label(flow_hash_ip6(after.data(), static_cast<uint32_t>(after.size())));
            return test::reference_encap(r, after, 41);
        };
        const exit_to core{&_f.core, mac_p, mac_core_port};
        if (csid()) {
            const bytes in = ip6_packet(64, sender, "fc00:0:100:200::", {in6});
            v.push_back(to("shift, then the policy", in, core, t_ipv6, pushed(ip6_packet(63, sender, "fc00:0:200::", {in6}))));
            return;
        }
        const bytes in = ip6_packet(64, sender, sid_addr, {srh(1, {next_sid, sid_addr}), in6});
        v.push_back(to("SL 1 -> 0, then the policy", in, core, t_ipv6,
                       pushed(ip6_packet(63, sender, next_sid, {srh(0, {next_sid, sid_addr}), in6}))));
        // S02: at SL 0 there is no next segment to steer: End's error, no policy.
        v.push_back(dropped("SL 0", ip6_packet(64, sender, sid_addr, {srh(0, {sid_addr, sender}), in6}),
                            drop_reason::srh_sl_zero));
    }

    // RFC 8986 §4.4-4.8 (NEXT-C-SID: the SID ends its container, RFC 9800 §4.1: the same).
    void decap(std::vector<shot>& v) const {
        for (const bool v4 : {true, false}) {
            const test::layer i = inner(v4);
            const bool takes = _row.decap & (v4 ? rib::decap::v4 : rib::decap::v6);
            for (const bool with_srh : {false, true}) {
                const bytes in = with_srh ? ip6_packet(64, sender, da(), {srh(0, {da(), sender}), i})
                                          : ip6_packet(64, sender, da(), {i});
                const std::string what = std::string("inner IPv") + (v4 ? "4" : "6") + (with_srh ? ", SRH SL 0" : "");
                // S05-S06 (DT) / S05-S07 (DX): outer header off, the inner one routed in the
                // table, or sent to the adjacency (its TTL decremented either way).
                if (takes)
                    v.push_back(to(what, in, out_inner(), v4 ? t_ipv4 : t_ipv6, ttl_minus_one(i.b)));
                else
                    v.push_back(dropped(what, in, drop_reason::sid_bad_inner));
            }
        }
        if (_row.decap & rib::decap::eth)
            decap_l2(v);
        // S01-S04: not at the end of the segment list.
        const bytes mid = ip6_packet(64, sender, da(), {srh(1, {next_sid, da()}), inner(true)});
        v.push_back(dropped("SRH SL 1", mid, drop_reason::srh_sl_nonzero));
    }

    // RFC 8986 §4.9 S05-S06 (End.DX2): the inner Ethernet frame leaves the oif's port exactly as
    // it was inside, untagged or with the customer's own tag; a payload that is not a frame
    // (next header not 143), one shorter than its header, an 802.3 length field where the type
    // is: dropped, as the kernel drops them.
    void decap_l2(std::vector<shot>& v) const {
        const bytes ip = inner4("10.9.0.1", "10.77.0.9").b;
        const bytes plain = eth(mac_ce1, mac_remote, t_ipv4, ip);
        bytes tagged = eth(mac_ce1, mac_remote, 0x8100, bytes{0x00, 0x64, 0x08, 0x00});
        tagged.insert(tagged.end(), ip.begin(), ip.end());
        for (const bool with_srh : {false, true})
            for (const auto& [what, frame] : {std::pair<std::string, bytes>{"frame", plain}, {"tagged frame", tagged}}) {
                const bytes in = with_srh ? ip6_packet(64, sender, da(), {srh(0, {da(), sender}), {143, frame}})
                                          : ip6_packet(64, sender, da(), {{143, frame}});
                v.push_back({what + (with_srh ? ", SRH SL 0" : ""), in, std::nullopt, &_f.ce, frame});
            }
        v.push_back(dropped("frame of 13 bytes", ip6_packet(64, sender, da(), {{143, bytes(plain.begin(), plain.begin() + 13)}}),
                            drop_reason::eth_truncated));
        bytes llc = plain;
        llc[12] = 0x00;
        llc[13] = 0x2e;  // an 802.3 length
        v.push_back(dropped("802.3 length, not a type", ip6_packet(64, sender, da(), {{143, llc}}), drop_reason::sid_bad_inner));
        // Larger than ce's MTU (1500) without its 14-byte header: dropped, as the kernel does.
        const bytes big = eth(mac_ce1, mac_remote, t_ipv4, inner4("10.9.0.1", "10.77.0.9", 64, 1473).b);
        v.push_back(dropped("frame past the port's MTU", ip6_packet(64, sender, da(), {{143, big}}), drop_reason::mtu_exceeded));
        const bytes at_mtu = inner4("10.9.0.1", "10.77.0.9", 64, 1480).b;
        const bytes fits = eth(mac_ce1, mac_remote, t_ipv4, inner4("10.9.0.1", "10.77.0.9", 64, 1480 - (at_mtu.size() - 1500)).b);
        v.push_back({"frame at the port's MTU", ip6_packet(64, sender, da(), {{143, fits}}), std::nullopt, &_f.ce, fits});
    }

    const behaviors_fixture& _f;
    const rib::behavior_info& _row;
    uint32_t _flavor;
    bool _red;
};

class Behavior : public ::testing::TestWithParam<row_flavor> {};

TEST_P(Behavior, DoesWhatTheRfcSays) {
    const auto& [row, flavor, red] = GetParam();
    behaviors_fixture f;
    const expectations x(f, *row, flavor, red);
    const bool csid = flavor == rib::flavor::next_csid;
    f.add(behaviors_fixture::sid_route(csid ? "fc00:0:100::/48" : "fc00:0:1::e/128", sid_for(*row, flavor, red),
                                       row->adjacency ? 0 : if_core));
    f.compile();
    const fib::compiled_nh& nh = f.nh_of(csid ? "fc00:0:100::/48" : "fc00:0:1::e/128");
    ASSERT_EQ(nh.kind(), fib::nh_kind::local_sid) << f.c.reason(nh.index());
    if (csid) {  // the compiler put the row's defaults in, the worker applies exactly those
        EXPECT_EQ(nh.sid().lcblock_bits, row->csid.block);
        EXPECT_EQ(nh.sid().lcnode_fn_bits, row->csid.node_fn);
    }
    const auto shots = x.shots();
    ASSERT_FALSE(shots.empty());
    for (const auto& s : shots)
        f.fire(s);
    EXPECT_EQ(f.dropped(drop_reason::sid_unsupported), 0u);
    EXPECT_EQ(f.dropped(drop_reason::neigh_unresolved), 0u);
}

// Every row with a handler and each flavor it takes; End.B6.Encaps's row once more per flavor
// with an H.Encaps.Red policy (End.B6.Encaps.Red is that row's policy mode, not a row).
std::vector<row_flavor> behavior_cases() {
    auto v = rows_and([](const rib::behavior_info& r, uint32_t f) {
        return r.handler != rib::dp_handler::none && (f == 0 || (r.flavors & f));
    });
    const size_t n = v.size();
    for (size_t i = 0; i < n; ++i)
        if (v[i].row->handler == rib::dp_handler::b6_encaps)
            v.push_back({v[i].row, v[i].flavor, true});
    return v;
}

INSTANTIATE_TEST_SUITE_P(Contract, Behavior, ::testing::ValuesIn(behavior_cases()), case_name);

// Rows without a handler, and flavors a row does not take: refused when compiled (with the
// contract's reason), and their packets dropped as refused SIDs, never as `sid_unsupported`.
class Refused : public ::testing::TestWithParam<row_flavor> {};

TEST_P(Refused, AtCompileTimeWithItsReason) {
    const auto& [row, flavor, red] = GetParam();
    behaviors_fixture f;
    f.add(behaviors_fixture::sid_route("fc00:0:1::e/128", sid_for(*row, flavor, red), if_core));
    f.compile();
    const fib::compiled_nh& nh = f.nh_of("fc00:0:1::e/128");
    ASSERT_EQ(nh.kind(), fib::nh_kind::refused);
    rib::seg6local l = sid_for(*row, flavor);
    EXPECT_EQ(f.c.reason(nh.index()), rib::check_contract(l).reason);
    EXPECT_EQ(nh.refusal(), row->handler == rib::dp_handler::none ? fib::nh_refusal::sid_unsupported
                                                                   : fib::nh_refusal::sid_bad_flavor);
    f.fire({"to the refused SID", ip6_packet(64, sender, sid_addr, {srh(1, {next_sid, sid_addr}), inner4("10.9.0.1", "10.1.0.2")}),
            drop_reason::sid_refused, nullptr, {}});
    EXPECT_EQ(f.dropped(drop_reason::sid_unsupported), 0u);
}

INSTANTIATE_TEST_SUITE_P(Contract, Refused, ::testing::ValuesIn(rows_and([](const rib::behavior_info& r, uint32_t f) {
                             if (r.handler == rib::dp_handler::none)
                                 return f == 0;
                             return f != 0 && !(r.flavors & f);
                         })),
                         case_name);

// --- binding SIDs

// The outer IPv6 header + SRH of `frame` (Ethernet first): its destination, and where the
// packet it carries starts (after the SRH when there is one).
struct outer_view {
    rib::ip6_addr dst, src;
    size_t inner = 0;
};
outer_view outer_of(const bytes& frame) {
    outer_view v;
    const uint8_t* ip = frame.data() + 14;
    std::copy(ip + 8, ip + 24, v.src.bytes.begin());
    std::copy(ip + 24, ip + 40, v.dst.bytes.begin());
    v.inner = 14 + 40 + (ip[6] == 43 ? (size_t{ip[41]} + 1) * 8 : 0);
    return v;
}

// A VPN route of VRF red steered into a policy by its binding SID (H.Encaps to [BSID, the far
// PE's VPN SID]): the packet reaches the BSID, End moves it to the VPN SID, the policy's header
// goes on and it leaves to the policy's first SID. Then the policy changes (another SID list,
// .Red), from the config or SONiC's named SID list: only the BSID's nexthop is rebuilt; the VPN
// route keeps its nexthop block, and its packets take the new policy.
TEST(BindingSid, SteersTheVpnAndItsPolicyChangesWithoutTouchingTheVpnRoute) {
    behaviors_fixture f;
    const char* bsid = "fc00:0:1::b6";
    const char* vpn_sid = "fc00:0:2::d6";
    auto bsid_route = [&](rib::seg6_encap policy) {
        rib::seg6local l;
        l.action = rib::behavior::end_b6_encaps;
        l.srh = std::move(policy);
        return behaviors_fixture::sid_route("fc00:0:1::b6/128", l, if_core);
    };
    f.add(bsid_route({rib::encap_mode::encap, {a6(policy_sid1), a6(policy_sid2)}, std::nullopt, {}}));
    rib::route vpn = behaviors_fixture::route("fd77::/64", nullptr, 0, red_table);
    vpn.nexthops[0].seg6 = rib::seg6_encap{rib::encap_mode::encap, {a6(bsid), a6(vpn_sid)}, std::nullopt, {}};
    f.add(vpn);
    f.compile();
    rib::route_key vk;
    vk.table = red_table;
    vk.dst = *rib::parse_prefix("fd77::/64");
    const uint32_t vpn_nh = f.c.find(vk)->nh;
    const fib::compiled_nh* vpn_block = &f.c.current()->nexthop(vpn_nh);
    ASSERT_EQ(vpn_block->kind(), fib::nh_kind::headend);
    ASSERT_EQ(f.nh_of("fc00:0:1::b6/128").kind(), fib::nh_kind::local_sid) << f.c.reason(f.nh_of("fc00:0:1::b6/128").index());

    const bytes customer = ip6_packet(64, "fd01::2", "fd77::9", {test::layer{17, bytes(24, 0x77)}});
    auto send = [&](std::vector<rib::ip6_addr> want_policy, bool red) {
        rte_mbuf* m = test::mbuf_of(eth(mac_ce_port, mac_ce1, t_ipv6, customer));
        ASSERT_EQ(rte_ring_enqueue(f.ce.rx, m), 0);
        f.w->poll();
        const auto got = wtest::out(f.core);
        ASSERT_EQ(got.size(), 1u) << f.drops();
        const bytes& fr = got[0];
        const outer_view o = outer_of(fr);
        EXPECT_EQ(o.dst, want_policy[0]);
        EXPECT_EQ(o.src, a6(encap_src));
        const size_t in_srh = red ? want_policy.size() - 1 : want_policy.size();
        EXPECT_EQ(o.inner, 14 + 40 + (in_srh ? 8 + 16 * in_srh : 0));
        // Inside: the VPN packet after End at the BSID, on its way to the far PE's VPN SID.
        const outer_view i = outer_of(bytes(fr.begin() + static_cast<std::ptrdiff_t>(o.inner) - 14, fr.end()));
        EXPECT_EQ(i.dst, a6(vpn_sid));
        EXPECT_EQ(fr[o.inner + 40 + 3], 0) << "segments left 0";
        EXPECT_EQ(fr[o.inner + 7], 63) << "End's hop limit";
    };
    send({a6(policy_sid1), a6(policy_sid2)}, false);

    // The config (or zebra) replaces the policy: one SID, reduced.
    f.add(bsid_route({rib::encap_mode::encap_red, {a6("fc00:0:2::e")}, std::nullopt, {}}));
    f.compile();
    EXPECT_EQ(f.c.find(vk)->nh, vpn_nh);
    EXPECT_EQ(&f.c.current()->nexthop(vpn_nh), vpn_block) << "the VPN route's nexthop was rebuilt";
    send({a6("fc00:0:2::e")}, true);

    // SONiC: the policy is a named SID list (4000 messages); a change of the list reaches the
    // BSID alone.
    rib::seg6_encap named;
    named.sidlist_name = "policy-a";
    f.r.upsert_sidlist("policy-a", {a6(policy_sid2), a6(policy_sid1)});
    f.add(bsid_route(named));
    f.compile();
    send({a6(policy_sid2), a6(policy_sid1)}, false);
    f.r.upsert_sidlist("policy-a", {a6(policy_sid1)});
    f.compile();
    EXPECT_EQ(&f.c.current()->nexthop(vpn_nh), vpn_block);
    send({a6(policy_sid1)}, false);
    EXPECT_EQ(f.drops(), "");
}

// --- End.DX2 against the kernel

// tests/fixtures/dx2-kernel/cases.txt: packets tests/kernel/dx2_capture.py sent through Linux's
// seg6local End.DX2 (oif a port, and oif a VLAN device on it) with the frame the kernel sent,
// or "drop". Through the worker, each must leave the same port with the same bytes (the
// sub-port's tag included), or be dropped too.
TEST(EndDx2Kernel, SameFramesAsLinuxSeg6local) {
    std::ifstream file(std::string(SRV6D_FIXTURES) + "/dx2-kernel/cases.txt");
    ASSERT_TRUE(file.good());
    behaviors_fixture f;
    constexpr uint32_t if_ce_vlan = 14;
    f.add_sub_port(20, 100, if_ce_vlan);
    rib::seg6local plain, vlan;
    plain.action = vlan.action = rib::behavior::end_dx2;
    plain.oif = if_ce;
    vlan.oif = if_ce_vlan;
    f.add(behaviors_fixture::sid_route("fc00:0:1::d2/128", plain, 0));
    f.add(behaviors_fixture::sid_route("fc00:0:1::d3/128", vlan, 0));
    f.compile();
    std::string name, line;
    bytes in;
    size_t cases = 0, forwarded = 0;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        const std::string key = line.substr(0, line.find(' ')), val = line.substr(line.find(' ') + 1);
        if (key == "case")
            name = val;
        if (key == "in")
            in = test::from_hex(val);
        if (key != "out")
            continue;
        SCOPED_TRACE(name);
        ++cases;
        const uint64_t drops_before = wtest::total_drops(*f.counters);
        rte_mbuf* m = test::mbuf_of(eth(mac_core_port, mac_remote, t_ipv6, in));
        ASSERT_NE(m, nullptr);
        ASSERT_EQ(rte_ring_enqueue(f.core.rx, m), 0);
        f.w->poll();
        const auto got = wtest::out(f.ce);
        EXPECT_TRUE(wtest::out(f.core).empty());
        EXPECT_TRUE(wtest::out(f.ce2).empty());
        if (val == "drop") {
            EXPECT_TRUE(got.empty());
            // (plus, for a drop that answers with ICMP, that message's own fate)
            EXPECT_GT(wtest::total_drops(*f.counters), drops_before) << f.drops();
            continue;
        }
        ++forwarded;
        ASSERT_EQ(got.size(), 1u) << f.drops();
        EXPECT_EQ(test::hex(got[0]), test::hex(test::from_hex(val)));
    }
    EXPECT_GE(cases, 12u);
    EXPECT_GE(forwarded, 7u);
}

// --- per-SID counters

std::pair<uint64_t, uint64_t> sid_counter(const behaviors_fixture& f, const char* prefix) {
    rib::route_key k;
    k.dst = *rib::parse_prefix(prefix);
    const auto c = f.c.sid_counter_of(k);
    EXPECT_TRUE(c.has_value()) << prefix;
    if (!c || c->slot >= max_sid_counters)
        return {0, 0};
    sid_count sum;
    sid_merge(sum, f.counters->sids[c->slot]);  // what the control thread reads
    return sid_counts(sum, c->gen);
}

// A deleted SID's nexthop index and counter slot go to the next SID at once (one slot here):
// that SID's counters start at 0, not at its predecessor's.
TEST(SidCounters, BelongToTheSidNotToARecycledIndex) {
    behaviors_fixture f(1);
    rib::seg6local end;  // End
    f.add(behaviors_fixture::sid_route("fc00:0:1::a/128", end, if_core));
    f.compile();
    const uint32_t first_nh = f.nh_of("fc00:0:1::a/128").index();
    rib::route_key a;
    a.dst = *rib::parse_prefix("fc00:0:1::a/128");
    const fib::sid_counter first = *f.c.sid_counter_of(a);
    const bytes in_a = ip6_packet(64, sender, "fc00:0:1::a", {srh(1, {next_sid, "fc00:0:1::a"}), inner6("fd09::1", "fd01::2")});
    const bytes out_a = eth(mac_p, mac_core_port, t_ipv6,
                            ip6_packet(63, sender, next_sid, {srh(0, {next_sid, "fc00:0:1::a"}), inner6("fd09::1", "fd01::2")}));
    for (int i = 0; i < 3; ++i)
        f.fire({"to A", in_a, std::nullopt, &f.core, out_a});
    EXPECT_EQ(sid_counter(f, "fc00:0:1::a/128"), (std::pair<uint64_t, uint64_t>{3, 3 * in_a.size()}));

    f.r.delete_route(a);
    f.compile();
    f.add(behaviors_fixture::sid_route("fc00:0:1::b/128", end, if_core));
    f.compile();
    rib::route_key b;
    b.dst = *rib::parse_prefix("fc00:0:1::b/128");
    const fib::sid_counter second = *f.c.sid_counter_of(b);
    ASSERT_EQ(f.nh_of("fc00:0:1::b/128").index(), first_nh) << "the case the issue names: the same nexthop index";
    ASSERT_EQ(second.slot, first.slot) << "and, with one slot, the same counter slot";
    EXPECT_NE(second.gen, first.gen);
    EXPECT_EQ(sid_counter(f, "fc00:0:1::b/128"), (std::pair<uint64_t, uint64_t>{0, 0})) << "B starts at 0";
    const bytes in_b = ip6_packet(64, sender, "fc00:0:1::b", {srh(1, {next_sid, "fc00:0:1::b"}), inner6("fd09::1", "fd01::2")});
    f.fire({"to B", in_b, std::nullopt, &f.core,
            eth(mac_p, mac_core_port, t_ipv6,
                ip6_packet(63, sender, next_sid, {srh(0, {next_sid, "fc00:0:1::b"}), inner6("fd09::1", "fd01::2")}))});
    EXPECT_EQ(sid_counter(f, "fc00:0:1::b/128"), (std::pair<uint64_t, uint64_t>{1, in_b.size()}));

    // A second SID finds no free slot: it is counted, in the overflow bucket.
    f.add(behaviors_fixture::sid_route("fc00:0:1::c/128", end, if_core));
    f.compile();
    rib::route_key c3;
    c3.dst = *rib::parse_prefix("fc00:0:1::c/128");
    EXPECT_EQ(f.c.sid_counter_of(c3)->slot, fib::sid_counter_overflow);
    const bytes in_c = ip6_packet(64, sender, "fc00:0:1::c", {srh(1, {next_sid, "fc00:0:1::c"}), inner6("fd09::1", "fd01::2")});
    f.fire({"to C", in_c, std::nullopt, &f.core,
            eth(mac_p, mac_core_port, t_ipv6,
                ip6_packet(63, sender, next_sid, {srh(0, {next_sid, "fc00:0:1::c"}), inner6("fd09::1", "fd01::2")}))});
    EXPECT_EQ(f.counters->sid_overflow.packets.get(), 1u);
    EXPECT_EQ(sid_counter(f, "fc00:0:1::b/128").first, 1u);
}

// A SID whose behavior changes keeps its slot: counters belong to the SID (its prefix).
TEST(SidCounters, SurviveAChangeOfTheSidsBehavior) {
    behaviors_fixture f;
    rib::seg6local end;
    f.add(behaviors_fixture::sid_route("fc00:0:1::a/128", end, if_core));
    f.compile();
    const bytes in = ip6_packet(64, sender, "fc00:0:1::a", {srh(1, {next_sid, "fc00:0:1::a"}), inner6("fd09::1", "fd01::2")});
    f.fire({"End", in, std::nullopt, &f.core,
            eth(mac_p, mac_core_port, t_ipv6,
                ip6_packet(63, sender, next_sid, {srh(0, {next_sid, "fc00:0:1::a"}), inner6("fd09::1", "fd01::2")}))});
    rib::seg6local psp;
    psp.flavors = rib::flavor::psp;
    f.add(behaviors_fixture::sid_route("fc00:0:1::a/128", psp, if_core));
    f.compile();
    f.fire({"End with PSP", in, std::nullopt, &f.core,
            eth(mac_p, mac_core_port, t_ipv6, ip6_packet(63, sender, next_sid, {inner6("fd09::1", "fd01::2")}))});
    EXPECT_EQ(sid_counter(f, "fc00:0:1::a/128").first, 2u);
}

}  // namespace
}  // namespace fwd
