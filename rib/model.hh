// The RIB model: what zebra told us, in value types, independent of the wire dialect
// (netlink, SONiC, protobuf) it arrived in. fpm/ produces these; rib/ stores them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "rib/addr.hh"

namespace rib {

// Kernel table id of a VRF (254 = main). The VRF registry (vrf/) maps it to a VRF.
using table_id = uint32_t;
constexpr table_id main_table = 254;

// rtm_type as zebra sends it, plus `local` for the router's own addresses.
enum class route_type : uint8_t { unicast, local, blackhole, unreachable, prohibit };
// iproute2's names (`ip route add blackhole ...`), as the API and the update text show them.
constexpr std::string_view route_type_name(route_type t) {
    switch (t) {
    case route_type::unicast: return "unicast";
    case route_type::local: return "local";
    case route_type::blackhole: return "blackhole";
    case route_type::unreachable: return "unreachable";
    case route_type::prohibit: return "prohibit";
    }
    return "unknown";
}

// rtm_protocol values that matter to us (linux/rtnetlink.h, FRR zebra2proto()).
namespace proto {
// RTPROT_STATIC, "route installed by administrator": srv6d's own config routes ([sids]).
constexpr uint8_t config = 4;
constexpr uint8_t kernel = 2;  // connected, kernel and FRR 10 local routes
constexpr uint8_t zebra = 11;
constexpr uint8_t bgp = 186;
constexpr uint8_t isis = 187;
constexpr uint8_t ospf = 188;
constexpr uint8_t sharp = 194;
constexpr uint8_t zstatic = 196;
}  // namespace proto

// SEG6_IPTUNNEL modes (linux/seg6_iptunnel.h) = RFC 8986 headend behaviors.
enum class encap_mode : uint8_t {
    inline_srh = 0,   // H.Insert
    encap = 1,        // H.Encaps
    l2encap = 2,      // H.Encaps.L2
    encap_red = 3,    // H.Encaps.Red
    l2encap_red = 4,  // H.Encaps.L2.Red
    // H.Insert.Red: srv6d's own number (the kernel has no reduced inline mode; SONiC's
    // B6_INSERT_RED and the config name it). Never decoded from a seg6 nest.
    inline_red = 5,
};

// Where an encapsulation source came from; precedence is resolved in issue 3's resolver.
enum class src_origin : uint8_t { none, route_attr /* SEG6_IPTUNNEL_SRC or SONiC ENCAP_SRC_ADDR */ };

struct seg6_encap {
    encap_mode mode = encap_mode::encap;
    std::vector<ip6_addr> segments;  // in visiting order: segments[0] is the first SID (initial DA)
    std::optional<ip6_addr> source;  // per-route source when the sender gave one
    std::string sidlist_name;        // SONiC: segments come from a named SID list
    bool operator==(const seg6_encap&) const = default;
};

// SEG6_LOCAL_ACTION values (linux/seg6_local.h); also the numbering FRR puts on the wire.
enum class behavior : uint16_t {
    end = 1,
    end_x = 2,
    end_t = 3,
    end_dx2 = 4,
    end_dx6 = 5,
    end_dx4 = 6,
    end_dt6 = 7,
    end_dt4 = 8,
    end_b6 = 9,
    end_b6_encaps = 10,
    end_bm = 11,
    end_s = 12,
    end_as = 13,
    end_am = 14,
    end_bpf = 15,
    end_dt46 = 16,
};

// SEG6_LOCAL_FLV_OPERATION bitmask (1 << SEG6_LOCAL_FLV_OP_*).
namespace flavor {
constexpr uint32_t psp = 1u << 1;
constexpr uint32_t usp = 1u << 2;
constexpr uint32_t usd = 1u << 3;
constexpr uint32_t next_csid = 1u << 4;
}  // namespace flavor

// SID structure (RFC 8986 §3.1); only SONiC sends all four, netlink sends the NEXT-C-SID pair.
struct sid_structure {
    uint8_t block_len = 0;
    uint8_t node_len = 0;
    uint8_t func_len = 0;
    uint8_t arg_len = 0;
    bool operator==(const sid_structure&) const = default;
};

struct seg6local {
    behavior action = behavior::end;
    uint32_t flavors = 0;                  // flavor:: bits
    std::optional<uint8_t> lcblock_bits;   // NEXT-C-SID locator block length
    std::optional<uint8_t> lcnode_fn_bits; // NEXT-C-SID node (+function) length
    std::optional<table_id> table;         // SEG6_LOCAL_TABLE (End.T, End.DT6 as FRR sends it)
    std::optional<table_id> vrftable;      // SEG6_LOCAL_VRFTABLE (End.DT4, End.DT46)
    std::optional<ip4_addr> nh4;           // End.DX4
    std::optional<ip6_addr> nh6;           // End.X, End.DX6
    std::optional<uint32_t> oif;           // End.X (FRR >= 10.6)
    std::optional<seg6_encap> srh;         // End.B6.Encaps segment list
    std::optional<sid_structure> structure;// SONiC FORMAT nest, protobuf SRv6SIDFormat
    std::string vrf_name;                  // SONiC/protobuf name a VRF instead of a table
    std::string ifname;                    // SONiC End.X/uA interface name
    bool operator==(const seg6local&) const = default;

    // DT behaviors decapsulate into a table; FRR uses TABLE for DT6 and VRFTABLE for DT4/DT46.
    std::optional<table_id> decap_table() const { return vrftable ? vrftable : table; }
};

// One forwarding path.
struct nexthop {
    uint32_t ifindex = 0;             // zebra's ifindex; 0 = none given
    std::optional<ip_addr> gateway;   // may differ in family from the route (RFC 5549)
    bool onlink = false;
    uint16_t weight = 1;              // 1..65536 semantics: 1 = lowest
    std::vector<uint32_t> mpls_labels;// bgpd SRv6 VPN nexthops carry the transposed label too
    std::optional<seg6_encap> seg6;   // headend: this path encapsulates
    std::optional<seg6local> local;   // endpoint: the route is a local SID
    bool operator==(const nexthop&) const = default;
};

// A route's inline paths: reads like a std::vector<nexthop>, but the storage is shared and copied
// on write, so that the RIB can keep one copy of each distinct path list (zebra without nexthop
// groups sends the same few SRv6 paths on a million routes; one rib::nexthop is ~400 bytes).
// Any non-const access (push_back, operator[], non-const begin...) first copies a shared list,
// so a list never changes under another holder. Not for concurrent use (the RIB is the control
// thread's).
class nexthop_list {
public:
    using value_type = nexthop;
    using iterator = std::vector<nexthop>::iterator;
    using const_iterator = std::vector<nexthop>::const_iterator;
    using size_type = size_t;

    nexthop_list() = default;
    nexthop_list(std::vector<nexthop> v) { assign(std::move(v)); }  // NOLINT: implicit, like a vector
    nexthop_list(std::initializer_list<nexthop> l) { assign(std::vector<nexthop>(l)); }
    nexthop_list& operator=(std::vector<nexthop> v) {
        assign(std::move(v));
        return *this;
    }
    nexthop_list& operator=(std::initializer_list<nexthop> l) {
        assign(std::vector<nexthop>(l));
        return *this;
    }

    size_t size() const { return _p ? _p->size() : 0; }
    bool empty() const { return size() == 0; }
    const_iterator begin() const { return view().begin(); }
    const_iterator end() const { return view().end(); }
    const_iterator cbegin() const { return begin(); }
    const_iterator cend() const { return end(); }
    const nexthop& operator[](size_t i) const { return (*_p)[i]; }
    const nexthop& at(size_t i) const { return view().at(i); }
    const nexthop& front() const { return _p->front(); }
    const nexthop& back() const { return _p->back(); }
    const std::vector<nexthop>& vector() const { return view(); }

    iterator begin() { return own().begin(); }
    iterator end() { return own().end(); }
    nexthop& operator[](size_t i) { return own()[i]; }
    nexthop& at(size_t i) { return own().at(i); }
    nexthop& front() { return own().front(); }
    nexthop& back() { return own().back(); }
    void push_back(nexthop n) { own().push_back(std::move(n)); }
    template <typename... A>
    nexthop& emplace_back(A&&... a) { return own().emplace_back(std::forward<A>(a)...); }
    void clear() { _p.reset(); }

    bool operator==(const nexthop_list& o) const {
        return _p == o._p || std::equal(begin(), end(), o.begin(), o.end());
    }
    bool operator==(const std::vector<nexthop>& v) const { return std::equal(begin(), end(), v.begin(), v.end()); }
    // Both hold the same storage (the RIB's sharing, for tests and accounting).
    bool shares_with(const nexthop_list& o) const { return _p && _p == o._p; }
    long holders() const { return _p.use_count(); }

private:
    void assign(std::vector<nexthop> v) {
        if (v.empty())
            _p.reset();
        else
            _p = std::make_shared<std::vector<nexthop>>(std::move(v));
    }
    const std::vector<nexthop>& view() const {
        static const std::vector<nexthop> none;
        return _p ? *_p : none;
    }
    std::vector<nexthop>& own() {
        if (!_p)
            _p = std::make_shared<std::vector<nexthop>>();
        else if (_p.use_count() > 1)
            _p = std::make_shared<std::vector<nexthop>>(*_p);
        return *_p;
    }
    std::shared_ptr<std::vector<nexthop>> _p;  // null when empty
};

// RTM_NEWNEXTHOP object: a singleton path, a blackhole, or a group of singleton ids.
struct nexthop_group_member {
    uint32_t id = 0;
    uint16_t weight = 1;
    bool operator==(const nexthop_group_member&) const = default;
};

struct nexthop_object {
    uint32_t id = 0;
    uint8_t protocol = 0;
    bool blackhole = false;
    std::optional<nexthop> path;                     // singleton
    std::vector<nexthop_group_member> group;         // non-empty for a group
    bool resilient = false;
    bool is_group() const { return !group.empty(); }
    bool operator==(const nexthop_object&) const = default;
};

struct route_key {
    table_id table = main_table;
    prefix dst;
    prefix src;  // IPv6 source-specific routes only; len 0 otherwise
    auto operator<=>(const route_key&) const = default;
    // The same as the member-wise comparison (40 bytes, no padding: asserted below), as one
    // inlined compare instead of two memcmp calls for the address arrays: every RIB probe and
    // every compiler route-state probe compares keys.
    bool operator==(const route_key& o) const { return std::memcmp(this, &o, sizeof(route_key)) == 0; }
};
static_assert(sizeof(route_key) == 40 && std::has_unique_object_representations_v<route_key>,
              "route_key == compares its bytes: it must have no padding");

struct route {
    route_key key;
    route_type type = route_type::unicast;
    uint8_t protocol = 0;
    std::optional<uint32_t> nh_id;     // NHG mode: the paths live in the nexthop object
    nexthop_list nexthops;             // inline mode (single path or RTA_MULTIPATH); shared storage
    std::optional<ip_addr> prefsrc;
    std::optional<uint32_t> mtu;
    std::optional<uint32_t> pic_id;    // SONiC NHG-mode VPN routes (3000): PIC context id
    bool operator==(const route&) const = default;
};

}  // namespace rib
