#include "host/kernel_routes.hh"

#include <fmt/format.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace host {

namespace {

// Beyond this many tables, one unfiltered dump per family is cheaper than one per table.
constexpr size_t max_filtered_dumps = 8;

struct dump {
    std::vector<rib::table_id> tables;  // sorted
    std::vector<rib::route_key>* out = nullptr;
};

std::optional<rib::prefix> prefix_of(nlattr* a, int af, uint8_t len) {
    rib::ip_addr addr;
    addr.af = af == AF_INET ? rib::family::ipv4 : rib::family::ipv6;
    const size_t size = af == AF_INET ? 4 : 16;
    if (a) {
        if (static_cast<size_t>(nla_len(a)) != size)
            return std::nullopt;
        std::memcpy(addr.bytes.data(), nla_data(a), size);
    }
    return rib::prefix::make(addr, len);
}

int on_route(nl_msg* m, void* arg) {
    auto* d = static_cast<dump*>(arg);
    nlmsghdr* h = nlmsg_hdr(m);
    if (h->nlmsg_type != RTM_NEWROUTE || nlmsg_datalen(h) < static_cast<int>(sizeof(rtmsg)))
        return NL_OK;
    const auto* r = static_cast<const rtmsg*>(nlmsg_data(h));
    if (r->rtm_family != AF_INET && r->rtm_family != AF_INET6)
        return NL_OK;
    nlattr* tb[RTA_MAX + 1] = {};
    if (nlmsg_parse(h, sizeof(rtmsg), tb, RTA_MAX, nullptr) < 0)
        return NL_OK;
    rib::route_key k;
    k.table = tb[RTA_TABLE] && nla_len(tb[RTA_TABLE]) == 4 ? nla_get_u32(tb[RTA_TABLE]) : r->rtm_table;
    if (!std::binary_search(d->tables.begin(), d->tables.end(), k.table))
        return NL_OK;  // an unfiltered dump, or a kernel without strict dump checks
    const auto dst = prefix_of(tb[RTA_DST], r->rtm_family, r->rtm_dst_len);
    if (!dst)
        return NL_OK;
    k.dst = *dst;
    if (r->rtm_src_len > 0) {
        const auto src = prefix_of(tb[RTA_SRC], r->rtm_family, r->rtm_src_len);
        if (!src)
            return NL_OK;
        k.src = *src;
    }
    d->out->push_back(k);
    return NL_OK;
}

}  // namespace

std::optional<std::vector<rib::route_key>> kernel_route_keys(const std::vector<rib::table_id>& tables,
                                                             std::string& error) {
    std::unique_ptr<nl_sock, void (*)(nl_sock*)> sk(nl_socket_alloc(), nl_socket_free);
    if (!sk) {
        error = "netlink: no socket";
        return std::nullopt;
    }
    if (int err = nl_connect(sk.get(), NETLINK_ROUTE); err < 0) {
        error = fmt::format("netlink: {}", nl_geterror(err));
        return std::nullopt;
    }
    const int fd = nl_socket_get_fd(sk.get());
    const timeval tv{5, 0};  // a dump that stalls must not hang the control thread
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    // Lets the kernel filter by table (Linux >= 4.20); without it every table comes and on_route
    // filters.
    const int one = 1;
    ::setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof one);
    std::vector<rib::route_key> out;
    dump d{tables, &out};
    std::sort(d.tables.begin(), d.tables.end());
    d.tables.erase(std::unique(d.tables.begin(), d.tables.end()), d.tables.end());
    // RT_TABLE_UNSPEC without RTA_TABLE: every table.
    const std::vector<rib::table_id> requests =
        d.tables.size() > max_filtered_dumps ? std::vector<rib::table_id>{0} : d.tables;
    nl_socket_modify_cb(sk.get(), NL_CB_VALID, NL_CB_CUSTOM, on_route, &d);
    for (const int af : {AF_INET, AF_INET6}) {
        for (const rib::table_id t : requests) {
            nl_msg* m = nlmsg_alloc_simple(RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP);
            if (m == nullptr) {
                error = "netlink: out of memory";
                return std::nullopt;
            }
            rtmsg r{};
            r.rtm_family = static_cast<unsigned char>(af);
            r.rtm_table = static_cast<unsigned char>(t < 256 ? t : 0u);  // 0 (RT_TABLE_UNSPEC): RTA_TABLE says it
            int err = nlmsg_append(m, &r, sizeof r, NLMSG_ALIGNTO);
            if (err >= 0 && t != 0)
                err = nla_put_u32(m, RTA_TABLE, t);
            if (err >= 0)
                err = nl_send_auto(sk.get(), m);
            nlmsg_free(m);
            if (err >= 0)
                err = nl_recvmsgs_default(sk.get());
            if (err < 0) {
                error = fmt::format("netlink route dump of table {}: {}", t, nl_geterror(err));
                return std::nullopt;
            }
        }
    }
    return out;
}

}  // namespace host
