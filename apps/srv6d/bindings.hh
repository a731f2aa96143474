// The control plane's state beside the RIB: VRFs (srv6d's config + the kernel's VRF devices),
// SIDs bound to their VRF, and the H.Encaps source (config + the kernel's tunsrc), with the io
// that keeps them current: the kernel monitor's netlink socket and the tunsrc re-read timer.
// Everything runs on the control thread (the io_context's), like the RIB. docs/srv6d.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"  // g++ 12 false positive in Asio, see fpm/listener.hh
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#pragma GCC diagnostic pop

#include "apps/srv6d/config.hh"
#include "rib/model.hh"
#include "rib/rib.hh"
#include "mgmt/answer.hh"
#include "vrf/encap_source.hh"
#include "vrf/kernel_monitor.hh"
#include "vrf/registry.hh"
#include "vrf/sid_binding.hh"
#include "vrf/tunsrc_poller.hh"

namespace srv6d {

class bindings {
public:
    bindings(boost::asio::io_context& io, const config& cfg, const rib::store& rib);
    ~bindings();  // releases the kernel monitor's fd first: libnl owns and closes it
    bindings(const bindings&) = delete;
    bindings& operator=(const bindings&) = delete;

    // Config VRFs into the registry, the kernel VRF monitor, the configured encap source and
    // the first tunsrc read. A kernel part that cannot start is logged and left out: VRFs from
    // the config and the configured encap source still work.
    void start();
    // Cancels the waits (on the control thread); nothing is re-armed afterwards.
    void stop();
    // The config's VRF lines and encap source changed (SIGHUP): the registry's config claims
    // follow them (refusals logged) and the configured encap source is replaced.
    void reload();

    // The RIB changed: re-bind its SIDs soon (coalesced: once per burst, not once per frame).
    void rib_changed();

    // Tables zebra's replay walks besides main: the tables of the kernel's VRF devices (zebra's
    // VRF-lite VRFs), whatever their state here. A config-only VRF is not one of zebra's VRFs
    // (no device), so zebra does not replay its table. Used by the FPM listener's sweep.
    bool replayed_table(rib::table_id t) const;

    // Fills the VRF and encap parts of what the management answers read.
    void fill_view(mgmt::daemon_view& v) const;

    const vrf::registry& registry() const { return _reg; }
    const vrf::sid_tracker& sids() const { return _sids; }
    const vrf::encap_source_resolver& encap() const { return _encap; }

    // Called after every coalesced sync (RIB burst, registry change, encap source change): where
    // the table compiler runs, so one burst of FPM frames costs one compilation.
    void on_synced(std::function<void()> f) { _on_synced = std::move(f); }

private:
    void wait_kernel();
    void arm_tunsrc();
    void sync_now();
    std::string kernel_status() const;

    boost::asio::io_context& _io;
    const config& _cfg;
    const rib::store& _rib;
    vrf::registry _reg;
    vrf::sid_tracker _sids;
    vrf::encap_source_resolver _encap;
    vrf::tunsrc_poller _tunsrc{_encap};
    vrf::kernel_monitor _kernel{_reg};
    std::string _kernel_error;  // why the monitor is not running; empty when it runs
    std::optional<boost::asio::posix::stream_descriptor> _kernel_fd;
    boost::asio::steady_timer _tunsrc_timer;
    std::function<void()> _on_synced;
    std::set<rib::route_key> _shadowed;  // config SIDs zebra's shadow, as last logged
    bool _sync_posted = false;
    bool _stopped = false;
    // replayed_table()'s cache, rebuilt when the registry's version moves.
    mutable std::set<rib::table_id> _kernel_tables;
    mutable std::optional<uint64_t> _kernel_tables_version;
};

}  // namespace srv6d
