#include "apps/srv6d/bindings.hh"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"  // see bindings.hh
#include <boost/asio/post.hpp>
#pragma GCC diagnostic pop

#include "apps/srv6d/sid_sync.hh"
#include "util/log.hh"

namespace srv6d {

using util::level;
using util::log;

bindings::bindings(boost::asio::io_context& io, const config& cfg, const rib::store& rib)
    : _io(io), _cfg(cfg), _rib(rib), _tunsrc_timer(io) {}

bindings::~bindings() {
    if (_kernel_fd)
        _kernel_fd->release();
}

void bindings::start() {
    for (const auto& e : _reg.sync(vrf::source::config, _cfg.vrfs))
        log(level::warn, "vrf: {}", e);
    log(level::info, "vrf: {} configured", _cfg.vrfs.size());
    // Every registry change (config load, kernel device events) re-binds the SIDs.
    _reg.subscribe([this] { rib_changed(); });

    _kernel_error = _kernel.start();
    if (!_kernel_error.empty()) {
        log(level::warn, "vrf: kernel VRF devices are not followed: {} (configured VRFs still apply)", _kernel_error);
    } else {
        log(level::info, "vrf: following kernel VRF devices ({} now)", _kernel.vrf_devices());
        _kernel_fd.emplace(_io, _kernel.fd());
        wait_kernel();
    }

    _encap.set_configured(_cfg.encap_source);
    _tunsrc.poll();  // before zebra connects: the first encapsulating route finds it set
    arm_tunsrc();
    sync_now();
}

void bindings::reload() {
    for (const auto& e : _reg.sync(vrf::source::config, _cfg.vrfs))
        log(level::warn, "vrf: {}", e);  // a registry change re-binds the SIDs (subscribed above)
    if (_encap.set_configured(_cfg.encap_source))
        rib_changed();  // rewrite the templates that use the configured source
}

void bindings::stop() {
    _stopped = true;
    _tunsrc_timer.cancel();
    if (_kernel_fd) {
        boost::system::error_code ignored;
        _kernel_fd->cancel(ignored);
    }
}

void bindings::wait_kernel() {
    _kernel_fd->async_wait(boost::asio::posix::stream_descriptor::wait_read,
                           [this](const boost::system::error_code& ec) {
                               if (ec || _stopped)
                                   return;
                               _kernel.process_events();  // syncs the registry, which re-binds SIDs
                               wait_kernel();
                           });
}

// The kernel sends no event when tunsrc changes (docs/encap-source.md): re-read it on a timer.
void bindings::arm_tunsrc() {
    _tunsrc_timer.expires_after(_tunsrc.interval());
    _tunsrc_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || _stopped)
            return;
        const auto before = _encap.version();
        _tunsrc.poll();  // the resolver logs a change of the global source
        if (_encap.version() != before)
            rib_changed();  // rewrite the templates that use the global source
        arm_tunsrc();
    });
}

void bindings::rib_changed() {
    if (_sync_posted || _stopped)
        return;
    _sync_posted = true;
    // After the handlers already queued (the rest of this read's frames): one sync per burst.
    boost::asio::post(_io, [this] {
        _sync_posted = false;
        if (!_stopped)
            sync_now();
    });
}

void bindings::sync_now() {
    for (const auto& c : sync_sids(_sids, _rib, _reg)) {
        // Binding news is worth a line: a refused SID (unbound table, unknown VRF, unsupported
        // behavior) drops what zebra asked for, a warning; one bound to a VRF is info. Plain
        // SIDs coming and going are routine (every replay) and only logged at debug.
        const bool news = c.after && (!c.after->active || c.after->vrf);
        log(!news ? level::debug : c.after->active ? level::info : level::warn, "{}", describe(c, _sids));
    }
    for (const auto& line : shadow_changes(_rib, _shadowed))
        log(level::info, "{}", line);
    if (_on_synced)
        _on_synced();
}

bool bindings::replayed_table(rib::table_id t) const {
    if (_kernel_tables_version != _reg.version()) {
        _kernel_tables.clear();
        for (const auto* v : _reg.vrfs())
            if (v->kernel_table)
                _kernel_tables.insert(*v->kernel_table);
        _kernel_tables_version = _reg.version();
    }
    return _kernel_tables.count(t) > 0;
}

std::string bindings::kernel_status() const {
    if (!_kernel_error.empty())
        return "not followed: " + _kernel_error;
    std::string s = fmt::format("{} ({} link events, {} re-dumps)", _kernel.vrf_devices(), _kernel.events(),
                                _kernel.resyncs());
    for (const auto& p : _kernel.problems())
        s += "; " + p;
    return s;
}

void bindings::fill_view(::mgmt::daemon_view& v) const {
    v.vrfs = &_reg;
    v.sids = &_sids;
    v.kernel_vrfs = kernel_status();
    v.encap = &_encap;
    v.encap_configured = _cfg.encap_source;
    v.tunsrc = &_tunsrc;
}

}  // namespace srv6d
