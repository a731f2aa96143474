// One resolved path -> the fields of its compiled nexthop: forward, headend (with its template
// and the resolved source), local SID (bound to its VRF), or refused with the reason. Pure: the
// same path against the same registry, source and SID lists gives the same result, so the
// compiler just calls it again when one of the inputs it depends on moves.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rib/addr.hh"
#include "rib/model.hh"
#include "fib/datapath/encap_template.hh"
#include "fib/datapath/nexthop.hh"
#include "vrf/encap_source.hh"
#include "vrf/registry.hh"
#include "vrf/sid_binding.hh"

namespace fib {

struct nh_inputs {
    const vrf::registry& reg;
    const vrf::encap_source_resolver& src;
    const std::map<std::string, std::vector<rib::ip6_addr>>& sidlists;  // SONiC SID lists (rib::sidlists())
};

struct nh_built {
    nh_fields fields;
    std::optional<encap_template> tmpl;  // headend / End.B6.Encaps: stored as is in the nexthop
    std::string reason;            // refused: why, in words (for show and logs)
    bool uses_registry = false;    // End.T / End.DT*: depends on the VRF bindings
    bool uses_global_src = false;  // no per-route source: depends on the global encap source
    std::string sidlist;           // depends on this SONiC SID list
};

// `af` = the family of the routes using the path: the inner protocol of an L3 encap template.
// `owner` = the VRF of the routes using it: a local SID that does not decapsulate into a VRF of
// its own (End, End.X, ...) forwards the rewritten packet there (sid.vrf). A local SID the
// behavior contract refuses (no datapath handler, a flavor its behavior does not take) or whose
// VRF does not bind is `refused` with the reason (vrf::bind_sid).
nh_built build_path_nh(rib::family af, const rib::nexthop& path, const nh_inputs& in, vrf::vrf_id owner = vrf::default_vrf_id);

nh_refusal to_nh_refusal(vrf::sid_refusal r);

}  // namespace fib
