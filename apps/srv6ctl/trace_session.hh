// srv6ctl trace / capture: arm the request, read records until `count` or the timeout, stop
// it; print them (trace) or write them to a pcap file (capture). srv6d never opens the file:
// it belongs to whoever runs srv6ctl.
#pragma once

#include "mgmt/client.hh"
#include "mgmt/ctl_args.hh"

namespace srv6ctl {

// Exit status as main()'s: 0 done, 1 srv6d or the file failed.
int run_session(mgmt::client& c, const mgmt::ctl_args& args);

}  // namespace srv6ctl
