#include "vrf/kernel_monitor.hh"

#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include <fmt/format.h>

#include "util/log.hh"
#include "vrf/kernel_links.hh"

namespace vrf {

kernel_monitor::~kernel_monitor() {
    if (_mngr)
        nl_cache_mngr_free(_mngr);  // frees the caches it manages
    if (_dump_sock)
        nl_socket_free(_dump_sock);
}

std::string kernel_monitor::start() {
    if (_mngr)
        return "kernel VRF monitor already started";
    if (int err = nl_cache_mngr_alloc(nullptr, NETLINK_ROUTE, 0, &_mngr); err < 0) {
        _mngr = nullptr;
        return fmt::format("netlink cache manager: {}", nl_geterror(err));
    }
    // Subscribes to RTNLGRP_LINK first, then dumps: no change can fall between the two.
    if (int err = nl_cache_mngr_add(_mngr, "route/link", &kernel_monitor::on_change, this, &_links); err < 0) {
        nl_cache_mngr_free(_mngr);
        _mngr = nullptr;
        _links = nullptr;
        return fmt::format("netlink link cache: {}", nl_geterror(err));
    }
    _dump_sock = nl_socket_alloc();
    if (!_dump_sock)
        return "cannot allocate a netlink socket";
    if (int err = nl_connect(_dump_sock, NETLINK_ROUTE); err < 0)
        return fmt::format("netlink connect: {}", nl_geterror(err));
    sync_registry();
    return {};
}

int kernel_monitor::fd() const { return _mngr ? nl_cache_mngr_get_fd(_mngr) : -1; }

void kernel_monitor::on_change(nl_cache*, nl_object*, int, void* self) { ++static_cast<kernel_monitor*>(self)->_events; }

bool kernel_monitor::resync() {
    ++_resyncs;
    // Drain what is queued first: it predates the dump and must not be applied after it.
    while (nl_cache_mngr_data_ready(_mngr) > 0) {
    }
    if (int err = nl_cache_refill(_dump_sock, _links); err < 0) {
        util::log(util::level::error, "vrf: re-dump of kernel links failed: {}", nl_geterror(err));
        return false;
    }
    return true;
}

size_t kernel_monitor::process_events() {
    if (!_mngr)
        return 0;
    const uint64_t before = _events;
    int err = nl_cache_mngr_data_ready(_mngr);
    if (err == -NLE_NOMEM) {  // ENOBUFS: the kernel dropped notifications
        util::log(util::level::warn, "vrf: link notifications lost (socket overrun), re-reading all links");
        resync();
    } else if (err < 0 && err != -NLE_AGAIN) {
        util::log(util::level::warn, "vrf: reading link notifications: {}", nl_geterror(err));
    }
    sync_registry();
    return static_cast<size_t>(_events - before);
}

void kernel_monitor::sync_registry() {
    std::vector<rtnl_link*> links;
    for (nl_object* o = nl_cache_get_first(_links); o; o = nl_cache_get_next(o))
        links.push_back(reinterpret_cast<rtnl_link*>(o));
    kernel_vrfs k = vrfs_from_links(links);
    const uint64_t v = _reg.version();
    auto errors = _reg.sync(source::kernel, k.specs);
    _vrf_devices = k.specs.size();
    if (_reg.version() != v || k.problems != _problems) {  // log what changed, not every batch
        for (const auto& p : k.problems)
            util::log(util::level::warn, "vrf: {}", p);
        for (const auto& e : errors)
            util::log(util::level::warn, "vrf: kernel VRF device refused: {}", e);
    }
    _problems = std::move(k.problems);
}

}  // namespace vrf
