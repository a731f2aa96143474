// Compiled nexthops: what a worker does with a packet once the LPM gave it a nexthop index.
// Each is one immutable block (fixed fields + a tail: the encap template bytes or the ECMP slot
// array), built by the control thread and never written again; a change builds a new block,
// swaps it into the nexthop table and retires the old one after a grace period. Every block
// carries a magic and a checksum of its content: intact() lets tests (and debug builds) prove
// that a reader never sees a half-built or freed nexthop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "fib/datapath/ecmp.hh"
#include "fib/datapath/encap_template.hh"

namespace fib {

enum class nh_kind : uint8_t {
    miss,         // no route (index 0): drop and count, ICMP unreachable
    forward,      // IP forwarding via a gateway or straight out of an interface
    blackhole,    // route type blackhole, or a blackhole nexthop object: silent drop
    unreachable,  // route type unreachable: drop, ICMP unreachable
    prohibit,     // route type prohibit: drop, ICMP administratively prohibited
    receive,      // the router's own address: punt to the host
    headend,      // H.Encaps*: prepend the template, then send via `via`
    local_sid,    // an SRv6 endpoint behavior (RFC 8986 §4) on a local SID
    refused,      // a SID or an encap srv6d cannot honour: counted drop with its reason
    ecmp,         // a weighted group of other nexthops, picked by flow hash
};
constexpr size_t nh_kind_count = 10;
std::string_view name(nh_kind k);

// Why a nexthop is refused. The sid_* reasons are vrf::sid_refusal's, one to one, and come
// first (the worker counts those up to sid_bad_flavor as sid_refused).
enum class nh_refusal : uint8_t {
    none,
    sid_table_unbound,
    sid_vrf_unknown,
    sid_vrf_not_active,
    sid_vrf_mismatch,
    sid_no_table,
    sid_unsupported,  // the behavior has no datapath handler (rib/behaviors.hh)
    sid_bad_flavor,   // a flavor the behavior does not take
    encap_insert_unsupported,
    encap_no_segments,
    encap_too_many_segments,
    encap_no_source,
    sidlist_unknown,  // a SONiC route names a SID list srv6d does not have
};
constexpr size_t nh_refusal_count = 13;
std::string_view name(nh_refusal r);

// Where a forward or headend nexthop sends the packet.
struct nh_via {
    uint32_t ifindex = 0;
    uint8_t gw_family = 0;  // 0: no gateway (interface route); else rib::family's value
    uint8_t onlink = 0;
    uint8_t pad[2]{};
    uint8_t gw[16]{};       // IPv4 gateways in the first 4 bytes
};

// Per-SID counter slots (fib::compiler hands them out, the worker counts in them); a SID
// beyond them gets sid_counter_overflow.
inline constexpr uint32_t max_sid_counters = 1u << 14;
inline constexpr uint32_t sid_counter_overflow = max_sid_counters;

// A local SID's behavior and parameters (RFC 8986 §4).
struct nh_sid {
    uint16_t action = 0;          // rib::behavior (SEG6_LOCAL_ACTION_*)
    uint16_t vrf = 0;             // End.DT4/DT6/DT46: decapsulate into; End.T: look up in;
                                  // other behaviors: the VRF the SID itself lives in
    uint8_t has_vrf = 0;          // 0 only while refused (the VRF did not bind)
    uint8_t has_nh4 = 0;
    uint8_t has_nh6 = 0;
    uint8_t lcblock_bits = 0;     // NEXT-C-SID locator block length, node + function length:
    uint8_t lcnode_fn_bits = 0;   // the SID's, or its behavior's defaults (rib::csid_of)
    uint8_t pad[3]{};
    uint32_t flavors = 0;         // rib::flavor bits
    uint32_t table = 0;           // the table the SID named (for show)
    uint32_t oif = 0;             // End.X (FRR >= 10.6) / the route's ifindex
    uint8_t nh4[4]{};             // End.DX4
    uint8_t nh6[16]{};            // End.X, End.DX6
    uint32_t counter = sid_counter_overflow;  // its counter slot (fwd::worker_counters::sids)
    uint32_t counter_gen = 0;                 // the SID's generation in that slot (never 0)
};

struct nh_group {
    uint16_t members = 0;
    uint16_t slots = 0;
};

// Everything but the tail; filled by the compiler, copied into the block by create().
struct nh_fields {
    nh_kind kind = nh_kind::miss;
    nh_refusal refusal = nh_refusal::none;
    uint8_t has_encap = 0;        // the tail starts with an encap_template (headend, End.B6.Encaps)
    uint8_t pad = 0;
    uint32_t index = 0;           // its own nexthop index (for counters and show)
    nh_via via;                   // forward, headend (the underlay path), local_sid (End.X)
    nh_sid sid;                   // local_sid, refused SIDs
    nh_group group;               // ecmp
};

constexpr uint32_t nh_live_magic = 0x4e48304b;  // "NH0K"

class compiled_nh {
public:
    // `tmpl` = the encap template, stored as is (headend, End.B6.Encaps; else nullptr);
    // `members` = ECMP members (ecmp).
    static const compiled_nh* create(const nh_fields& f, const encap_template* tmpl,
                                     std::span<const ecmp_member> members);
    static void destroy(const compiled_nh* n) noexcept;

    nh_kind kind() const { return _f.kind; }
    uint32_t index() const { return _f.index; }
    nh_refusal refusal() const { return _f.refusal; }
    const nh_via& via() const { return _f.via; }
    // The stored template, as the headend uses it; only when fields().has_encap.
    const encap_template& encap() const { return *reinterpret_cast<const encap_template*>(tail()); }
    const nh_sid& sid() const { return _f.sid; }
    const nh_fields& fields() const { return _f; }
    std::span<const uint8_t> encap_bytes() const {
        return _f.has_encap ? encap().wire() : std::span<const uint8_t>{};
    }
    // ECMP: the slot array (nexthop indices), and the members in group order with their weights.
    std::span<const uint32_t> slots() const;
    std::span<const ecmp_member> members() const;
    uint32_t pick(uint32_t flow_hash) const { return slots()[ecmp_slot(flow_hash, _f.group.slots)]; }

    // Magic and checksum hold: the block is fully built and not freed.
    bool intact() const;
    size_t size() const { return _bytes; }

private:
    compiled_nh() = default;
    const uint8_t* tail() const { return reinterpret_cast<const uint8_t*>(this + 1); }
    size_t slots_off() const { return _f.has_encap ? sizeof(encap_template) : 0; }
    uint32_t checksum() const;

    uint32_t _magic = 0;
    uint32_t _check = 0;
    uint32_t _bytes = 0;
    [[maybe_unused]] uint32_t _pad = 0;  // explicit padding (clang: -Wunused-private-field)
    nh_fields _f;
};

}  // namespace fib
