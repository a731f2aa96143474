#include "vrf/tunsrc.hh"

#include <linux/seg6_genl.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cstring>

#include <fmt/format.h>

namespace vrf {
namespace {

int on_reply(nl_msg* msg, void* arg) {
    auto* r = static_cast<tunsrc_reading*>(arg);
    nlattr* tb[SEG6_ATTR_MAX + 1] = {};
    if (int err = genlmsg_parse(nlmsg_hdr(msg), 0, tb, SEG6_ATTR_MAX, nullptr); err < 0) {
        r->error = fmt::format("malformed SEG6 reply: {}", nl_geterror(err));
        return NL_STOP;
    }
    const nlattr* dst = tb[SEG6_ATTR_DST];
    if (!dst || nla_len(dst) != 16) {
        r->error = "SEG6 reply without a 16-byte SEG6_ATTR_DST";
        return NL_STOP;
    }
    rib::ip6_addr a;
    std::memcpy(a.bytes.data(), nla_data(dst), a.bytes.size());
    r->ok = true;
    r->error.clear();
    r->addr = a.is_zero() ? std::nullopt : std::optional(a);  // `::` is how the kernel says unset
    return NL_OK;
}

}  // namespace

tunsrc_reader::~tunsrc_reader() { close(); }

void tunsrc_reader::close() {
    if (_sk)
        nl_socket_free(_sk);  // also closes the fd
    _sk = nullptr;
    _family = -1;
}

std::string tunsrc_reader::connect() {
    _sk = nl_socket_alloc();
    if (!_sk)
        return "cannot allocate a netlink socket";
    if (int err = genl_connect(_sk); err < 0)
        return fmt::format("generic netlink: {}", nl_geterror(err));
    // A read runs on the control thread: never wait on the kernel for long.
    timeval tv{1, 0};
    setsockopt(nl_socket_get_fd(_sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    // Errors come back whatever the flags; a successful GET needs no extra ACK to wait for.
    nl_socket_disable_auto_ack(_sk);
    _family = genl_ctrl_resolve(_sk, SEG6_GENL_NAME);
    if (_family < 0)
        return fmt::format("generic netlink family {} not found ({}): kernel without IPv6 segment routing?",
                           SEG6_GENL_NAME, nl_geterror(_family));
    return {};
}

tunsrc_reading tunsrc_reader::read() {
    tunsrc_reading r;
    if (!_sk) {
        if (auto e = connect(); !e.empty()) {
            close();
            r.error = std::move(e);
            return r;
        }
    }
    nl_msg* msg = nlmsg_alloc();
    if (!msg) {
        r.error = "cannot allocate a netlink message";
        return r;
    }
    int err = 0;
    if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, _family, 0, 0, SEG6_CMD_GET_TUNSRC, SEG6_GENL_VERSION))
        err = -NLE_NOMEM;
    else
        err = nl_send_auto(_sk, msg);
    nlmsg_free(msg);
    if (err < 0) {
        r.error = fmt::format("SEG6_CMD_GET_TUNSRC send: {}", nl_geterror(err));
        close();
        return r;
    }
    nl_cb* cb = nl_cb_alloc(NL_CB_DEFAULT);  // default handlers check the sequence number
    if (!cb) {
        r.error = "cannot allocate a netlink callback";
        close();
        return r;
    }
    nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_reply, &r);
    err = nl_recvmsgs(_sk, cb);
    nl_cb_put(cb);
    if (err < 0 || !r.ok) {
        if (err < 0)
            r.error = fmt::format("SEG6_CMD_GET_TUNSRC: {}", err == -NLE_AGAIN ? "no reply within 1 s" : nl_geterror(err));
        else if (r.error.empty())
            r.error = "SEG6_CMD_GET_TUNSRC: the kernel sent no reply";
        r.ok = false;
        r.addr.reset();
        close();  // the socket may hold a late reply: start clean next time
    }
    return r;
}

tunsrc_reading read_tunsrc() {
    tunsrc_reader reader;
    return reader.read();
}

}  // namespace vrf
