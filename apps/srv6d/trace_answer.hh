// srv6ctl trace / capture, answered from the dataplane's trace_hub (forward/control): arms the
// request on every worker, hands the records over as srv6ctl reads them, stops it.
#pragma once

#include <string>

#include "forward/control/dataplane.hh"
#include "mgmt/proto.hh"
#include "vrf/registry.hh"

namespace srv6d {

class trace_answer {
public:
    // One of TraceStart, TraceRead, TraceStop; an error text or "".
    std::string operator()(const ::mgmt::pb::Request& req, fwd::dataplane& dp, const vrf::registry& reg,
                           ::mgmt::pb::TraceRecords& out);

private:
    std::string _mode = "off", _port;
};

}  // namespace srv6d
