// The outer IPv6 source address of H.Encaps* packets. Resolved when routes or inputs change,
// never per packet, with this precedence:
//   1. the route's own source (SEG6_IPTUNNEL_SRC, SONiC ENCAP_SRC_ADDR);
//   2. FRR's global `segment-routing srv6 encapsulation source-address`, learned from the
//      kernel's per-netns tunsrc that zebra sets (FPM never carries it);
//   3. srv6d's configured `encap-source`.
// Nothing resolvable is an explicit `none` with the reason: the compiler must refuse such a
// nexthop rather than send packets from `::`.
// Lives in vrf/ beside the registry because both are "bindings the control plane resolves from
// config + kernel state before the compiler runs", and share the libnl plumbing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rib/addr.hh"
#include "rib/model.hh"
#include "vrf/tunsrc.hh"

namespace vrf {

enum class encap_origin : uint8_t { none, route, kernel_tunsrc, config };

std::string_view to_string(encap_origin o);  // stable JSON names: "route", "kernel-tunsrc", ...

struct encap_src {
    std::optional<rib::ip6_addr> addr;  // nullopt iff origin == none
    encap_origin origin = encap_origin::none;
    std::string detail;                 // where it came from; for none, why nothing resolved
    bool ok() const { return addr.has_value(); }
    bool operator==(const encap_src&) const = default;
};

// "fc00:0:1::1 (kernel tunsrc, from FRR's source-address or ip sr tunsrc set)" / "none (...)", for `srv6ctl show encap-source`.
std::string to_string(const encap_src& s);

// Why `a` cannot source encapsulated packets (::, loopback, multicast, link-local, IPv4-mapped),
// or nullopt. Applied to srv6d's own input (its config); the route's and the kernel's
// values are taken as given.
std::optional<std::string> check_encap_source(const rib::ip6_addr& a);

class encap_source_resolver {
public:
    encap_source_resolver() { recompute(); }

    // --- inputs; each returns true when global() changed address or origin (version() moved).
    // A failed read before any good one leaves the kernel tier empty; a failed read after a good
    // one keeps the last value (a transient error must not rewrite every header twice).
    bool set_kernel_tunsrc(const tunsrc_reading& r);
    bool set_configured(std::optional<rib::ip6_addr> a);  // srv6d's `encap-source`

    // --- outputs
    const encap_src& global() const { return _global; }
    encap_src resolve(const rib::seg6_encap& e) const;
    // Moves when global()'s address or origin changes: pre-built headers must be rewritten.
    uint64_t version() const { return _version; }

private:
    bool recompute();

    std::optional<rib::ip6_addr> _kernel;  // last good reading; nullopt = unset
    bool _kernel_known = false;
    std::string _kernel_error;
    std::optional<rib::ip6_addr> _configured;
    encap_src _global;
    uint64_t _version = 0;
};

}  // namespace vrf
