// "Where does this address go": the answer of the compiled tables, as a worker would find it
// (the published view's LPM and nexthops), for `srv6ctl show route ADDR`. Control thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fib/control/compiler.hh"
#include "fib/datapath/nexthop.hh"
#include "rib/addr.hh"
#include "rib/model.hh"
#include "vrf/registry.hh"

namespace fib {

// One nexthop a packet to the address can take (an ECMP group gives one per member).
struct lookup_path {
    uint32_t index = nh_miss;  // nexthop index in the compiled tables
    nh_kind kind = nh_kind::miss;
    uint32_t weight = 1;       // ECMP member weight; 1 for a single path
    std::string refusal;       // refused: the reason class and, after ": ", the words
    // forward, headend (the underlay path), End.X
    uint32_t ifindex = 0;
    std::optional<rib::ip_addr> gateway;
    // headend: read back from the template the worker prepends
    std::optional<rib::encap_mode> encap;
    std::vector<rib::ip6_addr> segments;  // visiting order
    std::optional<rib::ip6_addr> source;
    // local_sid
    std::optional<rib::behavior> behavior;
    uint32_t flavors = 0;
    std::optional<vrf::vrf_id> sid_vrf;   // decapsulate into / look up in
    uint32_t sid_table = 0;
};

struct lookup_result {
    vrf::vrf_id vrf = vrf::default_vrf_id;
    rib::table_id table = 0;
    uint64_t epoch = 0;       // publication the answer comes from (0: nothing published yet)
    uint32_t nh = nh_miss;    // what the LPM gave
    // The longest installed prefix of the VRF's table that covers the address (absent: none,
    // the dataplane drops the packet as no_route).
    std::optional<rib::prefix> prefix;
    std::vector<lookup_path> paths;
};

// `v` must be a VRF of `reg` (its id and table). Reads the published view, not the RIB: a
// change not compiled yet is not in the answer.
lookup_result lookup_route(const compiler& c, const vrf::vrf_info& v, const rib::ip_addr& addr);

// Segments, source and mode of an encap template, as they are on the wire.
void describe_encap(const encap_template& t, lookup_path& out);

}  // namespace fib
