// Who is at the other end of an accepted TCP connection. TCP has no SO_PEERCRED, but when the
// peer is a process of this host (of this network namespace) its socket is in the kernel's
// table next to ours: sock_diag (INET_DIAG, an exact 4-tuple lookup) gives its owner's uid.
// A peer whose socket is not there is on another host (or in another network namespace).
#pragma once

#include <cstdint>
#include <string>

#include "rib/addr.hh"

struct nl_sock;

namespace fpm {

struct tcp_end {
    rib::ip_addr addr;  // IPv4-mapped IPv6 addresses are given as IPv4 (the peer's socket is AF_INET)
    uint16_t port = 0;
};

struct peer_socket {
    enum class state : uint8_t {
        owned,     // found, held by a process: `uid` is its owner (the creator's fsuid)
        orphaned,  // found but no process holds it any more (closed; TIME_WAIT): no owner to ask
        absent,    // no such socket here: the peer is remote
        error,     // the lookup failed (`error` says why)
    };
    state what = state::absent;
    uint32_t uid = 0;
    uint64_t inode = 0;
    std::string error;
};

// One NETLINK_SOCK_DIAG socket, kept open for the listener's lifetime. Control thread only.
class peer_finder {
public:
    peer_finder() = default;
    ~peer_finder();
    peer_finder(const peer_finder&) = delete;
    peer_finder& operator=(const peer_finder&) = delete;

    // The socket whose local end is `peer` and remote end is `local` (ours, seen from the
    // other side). Blocking, one request and one answer: microseconds.
    peer_socket find(const tcp_end& peer, const tcp_end& local);

private:
    bool open(std::string& error);
    nl_sock* _sock = nullptr;
};

// The user name of `uid` ("frr"), or the number when it has none.
std::string user_name(uint32_t uid);

}  // namespace fpm
