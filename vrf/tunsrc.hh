// The kernel's per-netns SRv6 encapsulation source ("ip sr tunsrc"), read with the generic
// netlink family "SEG6", command SEG6_CMD_GET_TUNSRC. FRR >= 10.0 zebra writes it there from
// `segment-routing srv6 encapsulation source-address` (SEG6_CMD_SET_TUNSRC) and never sends it
// over FPM, so this is how srv6d learns FRR's global source. Read it in zebra's netns.
// The kernel sends no notification when it changes: callers re-read it (tunsrc_poller).
#pragma once

#include <optional>
#include <string>

#include "rib/addr.hh"

struct nl_sock;

namespace vrf {

struct tunsrc_reading {
    bool ok = false;                    // the kernel answered
    std::optional<rib::ip6_addr> addr;  // nullopt when the kernel holds `::` (unset)
    std::string error;                  // why not ok
    bool operator==(const tunsrc_reading&) const = default;
};

// Keeps one generic netlink socket and the resolved family id between reads, so a read costs
// one request and one reply. Reconnects after an error. Blocking, with a 1 s receive timeout.
class tunsrc_reader {
public:
    tunsrc_reader() = default;
    ~tunsrc_reader();
    tunsrc_reader(const tunsrc_reader&) = delete;
    tunsrc_reader& operator=(const tunsrc_reader&) = delete;

    tunsrc_reading read();

private:
    std::string connect();
    void close();

    nl_sock* _sk = nullptr;
    int _family = -1;
};

// One-shot read on a fresh socket.
tunsrc_reading read_tunsrc();

}  // namespace vrf
