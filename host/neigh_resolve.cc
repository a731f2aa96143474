#include "host/neigh_resolve.hh"

#include <fmt/format.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <sys/socket.h>

namespace host {

neigh_resolver::~neigh_resolver() {
    if (_sock)
        nl_socket_free(_sock);
}

std::string neigh_resolver::open() {
    _sock = nl_socket_alloc();
    if (_sock == nullptr)
        return "netlink: no socket";
    if (int err = nl_connect(_sock, NETLINK_ROUTE); err < 0)
        return fmt::format("netlink connect: {}", nl_geterror(err));
    return {};
}

// RTM_NEWNEIGH with NTF_USE is the kernel's own "resolve this" (what a packet sent to the
// neighbor would do, neigh_event_send(), without a packet): it creates the entry if needed
// (NLM_F_CREATE) and starts ARP/ND, also from FAILED; on an entry that is already valid it
// changes nothing (REPLACE with NTF_USE updates neither state nor address). Accepted by every
// kernel since 2.6 (checked here on 6.18; iproute2: `ip neigh replace ADDR dev DEV nud none use`). The state is
// NUD_NONE, not iproute2's default NUD_PERMANENT: a permanent one would exempt the new entry
// from the kernel's garbage collection. Unlike a datagram sent out of the TAP (SO_BINDTODEVICE),
// it needs no route, no source address choice and puts no packet on the wire but the probe.
std::string neigh_resolver::resolve(uint32_t ifindex, const rib::ip_addr& addr) {
    if (_sock == nullptr)
        return "not open";
    nl_msg* m = nlmsg_alloc_simple(RTM_NEWNEIGH, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
    if (m == nullptr)
        return "out of memory";
    ndmsg nd{};
    nd.ndm_family = addr.is_v4() ? AF_INET : AF_INET6;
    nd.ndm_ifindex = static_cast<int>(ifindex);
    nd.ndm_state = NUD_NONE;
    nd.ndm_flags = NTF_USE;
    std::string why;
    if (nlmsg_append(m, &nd, sizeof nd, NLMSG_ALIGNTO) < 0 ||
        nla_put(m, NDA_DST, addr.is_v4() ? 4 : 16, addr.bytes.data()) < 0) {
        why = "message too long";
    } else if (int err = nl_send_auto(_sock, m); err < 0) {
        why = nl_geterror(err);
    } else if (err = nl_wait_for_ack(_sock); err < 0) {
        why = nl_geterror(err);
    }
    nlmsg_free(m);
    return why;
}

}  // namespace host
