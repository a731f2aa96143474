#include "fpm/peer_owner.hh"

#include <fmt/format.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <array>
#include <cstring>

namespace fpm {

namespace {

// TCP_TIME_WAIT (include/net/tcp_states.h; no uapi header has it).
constexpr uint8_t tcp_time_wait = 6;

void put_addr(const rib::ip_addr& a, __be32 (&out)[4]) {
    std::memcpy(out, a.bytes.data(), a.is_v4() ? 4 : 16);
}

struct answer {
    bool got = false;
    inet_diag_msg msg{};
};

int on_valid(nl_msg* m, void* arg) {
    auto* a = static_cast<answer*>(arg);
    const nlmsghdr* h = nlmsg_hdr(m);
    if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && nlmsg_datalen(h) >= static_cast<int>(sizeof(inet_diag_msg))) {
        std::memcpy(&a->msg, nlmsg_data(h), sizeof a->msg);
        a->got = true;
    }
    return NL_OK;
}

}  // namespace

peer_finder::~peer_finder() {
    if (_sock)
        nl_socket_free(_sock);
}

bool peer_finder::open(std::string& error) {
    if (_sock)
        return true;
    _sock = nl_socket_alloc();
    if (_sock == nullptr) {
        error = "sock_diag: no netlink socket";
        return false;
    }
    if (int err = nl_connect(_sock, NETLINK_SOCK_DIAG); err < 0) {
        error = fmt::format("sock_diag: {}", nl_geterror(err));
        nl_socket_free(_sock);
        _sock = nullptr;
        return false;
    }
    // The answer comes at once; a lost one must not hang the control thread.
    const timeval tv{1, 0};
    ::setsockopt(nl_socket_get_fd(_sock), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    nl_socket_disable_auto_ack(_sock);  // the answer (or the error) is the reply
    return true;
}

peer_socket peer_finder::find(const tcp_end& peer, const tcp_end& local) {
    peer_socket out;
    if (!open(out.error)) {
        out.what = peer_socket::state::error;
        return out;
    }
    inet_diag_req_v2 req{};
    req.sdiag_family = peer.addr.is_v4() ? AF_INET : AF_INET6;
    req.sdiag_protocol = IPPROTO_TCP;
    req.idiag_states = ~0u;
    req.id.idiag_sport = htons(peer.port);
    req.id.idiag_dport = htons(local.port);
    put_addr(peer.addr, req.id.idiag_src);
    put_addr(local.addr, req.id.idiag_dst);
    req.id.idiag_cookie[0] = req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

    // Without NLM_F_DUMP the kernel looks the 4-tuple up (inet_diag_find_one_icsk) and answers
    // with that one socket or ENOENT.
    nl_msg* m = nlmsg_alloc_simple(SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST);
    if (m == nullptr || nlmsg_append(m, &req, sizeof req, NLMSG_ALIGNTO) < 0) {
        if (m)
            nlmsg_free(m);
        out.what = peer_socket::state::error;
        out.error = "sock_diag: out of memory";
        return out;
    }
    int err = nl_send_auto(_sock, m);
    nlmsg_free(m);
    answer a;
    if (err >= 0) {
        nl_socket_modify_cb(_sock, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &a);
        err = nl_recvmsgs_default(_sock);
    }
    if (err == -NLE_OBJ_NOTFOUND)
        return out;  // absent
    if (err < 0 || !a.got) {
        out.what = peer_socket::state::error;
        out.error = fmt::format("sock_diag: {}", err < 0 ? nl_geterror(err) : "no answer");
        // The socket may hold a late answer now: start over with a fresh one next time.
        nl_socket_free(_sock);
        _sock = nullptr;
        return out;
    }
    out.uid = a.msg.idiag_uid;
    out.inode = a.msg.idiag_inode;
    // A closed socket lingers as a timewait entry with neither an inode nor an owner (it shows
    // uid 0): it must not pass for root's.
    out.what = a.msg.idiag_inode == 0 || a.msg.idiag_state == tcp_time_wait ? peer_socket::state::orphaned
                                                                          : peer_socket::state::owned;
    return out;
}

std::string user_name(uint32_t uid) {
    passwd pw{};
    passwd* found = nullptr;
    std::array<char, 1024> buf{};
    if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found)
        return found->pw_name;
    return std::to_string(uid);
}

}  // namespace fpm
