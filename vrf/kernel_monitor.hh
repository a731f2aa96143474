// Follows the kernel's VRF devices (the ones FRR's VRF-lite backend uses) and keeps the
// registry's `kernel` claims equal to them: a libnl cache manager dumps the links at start and
// applies RTNLGRP_LINK notifications; after each batch the whole link cache is translated
// (vrfs_from_links) and synced, so a missed or reordered event cannot leave a stale binding.
// Async use: wait for fd() to be readable (asio::posix::stream_descriptor::async_wait with
// wait_read, then release() the descriptor on shutdown: the fd belongs to libnl) and call
// process_events(). Control thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vrf/registry.hh"

struct nl_cache;
struct nl_cache_mngr;
struct nl_object;
struct nl_sock;

namespace vrf {

class kernel_monitor {
public:
    explicit kernel_monitor(registry& reg) : _reg(reg) {}
    ~kernel_monitor();
    kernel_monitor(const kernel_monitor&) = delete;
    kernel_monitor& operator=(const kernel_monitor&) = delete;

    // Subscribe, dump, and sync the registry. Empty string on success, else why not.
    [[nodiscard]] std::string start();
    // The notification socket; -1 before start().
    int fd() const;
    // Apply pending notifications without blocking, then sync the registry. Returns the number
    // of link objects that changed. A socket overrun (ENOBUFS) triggers a full re-dump.
    size_t process_events();

    size_t vrf_devices() const { return _vrf_devices; }   // at the last sync
    uint64_t events() const { return _events; }
    uint64_t resyncs() const { return _resyncs; }
    const std::vector<std::string>& problems() const { return _problems; }  // of the last sync

private:
    static void on_change(nl_cache* cache, nl_object* obj, int action, void* self);
    void sync_registry();
    bool resync();

    registry& _reg;
    nl_cache_mngr* _mngr = nullptr;
    nl_cache* _links = nullptr;   // owned by _mngr
    nl_sock* _dump_sock = nullptr;
    size_t _vrf_devices = 0;
    uint64_t _events = 0;
    uint64_t _resyncs = 0;
    std::vector<std::string> _problems;
};

}  // namespace vrf
