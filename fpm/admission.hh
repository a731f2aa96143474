// Who may feed the RIB over FPM. FPM has no authentication (zebra's neither), so the listener
// admits a connection by what the kernel says about its peer: a process of this host by the
// owner of its socket (fpm/peer_owner.hh), another host by its address. docs/srv6d.md, "Who may
// connect".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fpm/peer_owner.hh"
#include "rib/addr.hh"

namespace fpm {

struct admission_policy {
    bool any_user = false;             // `fpm.allow-user = any`: every local process
    std::vector<uint32_t> uids;        // local peers: the owners admitted (zebra runs as `frr`)
    std::vector<rib::prefix> remotes;  // peers on other hosts: the addresses admitted
};

// What the takeover rule compares: a local peer by its user, a remote one by its address.
struct peer_identity {
    bool local = false;
    uint32_t uid = 0;
    rib::ip_addr addr;
    bool operator==(const peer_identity& o) const {
        return local == o.local && (local ? uid == o.uid : addr == o.addr);
    }
};

std::string to_string(const peer_identity& p);  // "uid 103 (frr)", "remote 10.0.0.2"

enum class verdict : uint8_t {
    admitted,
    user_refused,     // a local process of a user not in fpm.allow-user
    address_refused,  // another host, not in fpm.allow-address
    owner_unknown,    // a loopback peer whose socket is gone or could not be looked up
};

struct admission {
    verdict what = verdict::admitted;
    peer_identity who;
    std::string why;  // for the log when refused
};

// `peer` is the connection's remote end, `found` what sock_diag said about its socket.
admission admit(const admission_policy& p, const tcp_end& peer, const peer_socket& found);

// Whether a peer admitted earlier still is under `p` (a reload changed the policy).
bool still_admitted(const admission_policy& p, const peer_identity& who);

// srv6d's `fpm.allow-user` words: "any", uids, user names. A name this host does not know is
// left out and returned in `missing` (the default names `frr`, which a host without FRR lacks).
admission_policy resolve_users(const std::vector<std::string>& words, std::vector<std::string>& missing);

// 127.0.0.0/8 and ::1: only a process of this host can be there.
bool is_loopback(const rib::ip_addr& a);

}  // namespace fpm
