// The control thread's state and its handlers: start-up (start.cc), reload (reload.cc), the
// counters and memory it shows (counters_view.cc), the kernel and link watchers
// (host_watch.cc), signals and shutdown (runtime.cc). Only the control thread touches it.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"  // g++ 12 false positive in Asio, see fpm/listener.hh
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#pragma GCC diagnostic pop

#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/srv6d/bindings.hh"
#include "apps/srv6d/config.hh"
#include "apps/srv6d/compile_timer.hh"
#include "apps/srv6d/refusal_log.hh"
#include "apps/srv6d/route_answer.hh"
#include "apps/srv6d/runtime.hh"
#include "apps/srv6d/trace_answer.hh"
#include "fib/control/compiler.hh"
#include "fib/datapath/rcu.hh"
#include "forward/control/dataplane.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/listener.hh"
#include "fpm/session.hh"
#include "host/kernel_state.hh"
#include "host/neigh_resolve.hh"
#include "host/resolve_limiter.hh"
#include "mgmt/metrics_server.hh"
#include "mgmt/proto.hh"
#include "mgmt/render.hh"
#include "mgmt/server.hh"
#include "rib/rib.hh"
#include "vrf/registry.hh"

namespace srv6d {

// systemd's Type=notify protocol; a no-op without NOTIFY_SOCKET (not run by systemd).
void notify(const std::string& state);

std::string join(const std::vector<std::string>& v, std::string_view sep = " ");

// Everything the control thread owns. Members are destroyed in reverse order: the io objects
// (mgmt server, listener) go before the state their handlers read.
struct control_plane {
    control_plane(const config& c, reparse_fn rp) : cfg(c), reparse(std::move(rp)) {}

    // The configuration in force: what a reload changed replaces its fields (bindings reads it).
    config cfg;
    reparse_fn reparse;
    boost::asio::io_context io;
    rib::store rib;
    fpm::ingest_stats stats;
    fpm::session_info session;
    bindings vrfs{io, cfg, rib};  // VRFs, SID bindings, encap source
    // The compiled tables the workers read; published by pointer swap, old versions freed after
    // a QSBR grace period. Declared after the RIB and bindings they read, so destroyed first.
    fib::qsbr_domain rcu{max_workers};
    fib::compiler compiler{rcu};
    refusal_log refusals;  // what the compiler leaves unforwarded, told when it grows
    static constexpr uint32_t max_workers = 16;
    // The workers read the compiler's tables: declared after it, so stopped and gone first.
    std::optional<fwd::dataplane> dp;
    trace_answer trace;  // srv6ctl trace / capture
    // Compile at once when idle, else at most every 50 ms or after 100 000 updates while FPM
    // updates keep coming (docs/srv6d.md: larger batches, 2-3x the compiler's throughput).
    compile_timer compiles{io, [this](size_t batch) { return compile_now(batch); }, std::chrono::milliseconds(50), 100'000};
    // Set by shutdown(): no handler re-arms its timer or wait after it. cancel() only reaches
    // a wait still pending; one whose completion was already queued (a 20 ms or 100 ms timer
    // that expired just before the signal's handler ran) runs with success and would re-arm
    // itself, so io.run() never ran out of work and srv6d ignored SIGTERM.
    bool stopping = false;
    std::optional<fpm::listener> listener;
    std::optional<::mgmt::server> mgmt;
    std::optional<::mgmt::metrics_server> metrics;  // metrics.listen set
    std::string scrape(::mgmt::exposition_format f) const;
    // When this srv6d started (seconds since the epoch): srv6d_start_time_seconds.
    const double started_at = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    boost::asio::signal_set signals{io, SIGINT, SIGTERM, SIGHUP};
    void reload();
    // show version: since when, how many reloads were applied.
    const std::chrono::system_clock::time_point started = std::chrono::system_clock::now();
    uint64_t reloads = 0;
    std::string status() const;
    // Lines a flood held back are told about (util/log.hh) even when the flood stopped.
    boost::asio::steady_timer log_timer{io};
    void flush_log();
    boost::asio::steady_timer link_timer{io};  // port link state, polled every 100 ms
    void poll_links();
    // The kernel's neighbors and addresses on the TAP mirrors (only with a host path).
    std::optional<host::kernel_state> kernel;
    std::optional<boost::asio::posix::stream_descriptor> kernel_fd;
    void watch_kernel();
    void kernel_changed();
    void fill_neighbors(::mgmt::pb::NeighborTable& t) const;
    void fill_memory(::mgmt::pb::Memory& m) const;
    // Neighbors the workers missed for packets they rewrote: the kernel is asked to resolve
    // them on the port's TAP (docs/host-path.md), at most once a second per neighbor.
    std::optional<host::neigh_resolver> resolver;
    host::resolve_limiter limiter;
    boost::asio::steady_timer resolve_timer{io};
    std::vector<fwd::resolve_request> resolve_buf;
    void resolve_neighbors();
    ~control_plane() {
        if (kernel_fd)
            kernel_fd->release();  // libnl owns the descriptor
    }

    // start() in steps, each logging its own error: false stops srv6d.
    bool start();
    bool start_dataplane();
    bool start_host();
    bool start_fpm();
    // The listener's options from cfg; users fpm.allow-user names that this host lacks in `missing`.
    fpm::listener_options fpm_options(std::vector<std::string>& missing) const;
    bool start_mgmt();
    bool start_metrics();
    void watch_signals();
    void shutdown();
    std::optional<vrf::vrf_id> active_vrf(const std::string& name) const {
        const auto* v = vrfs.registry().find(name);
        if (v == nullptr || v->state != vrf::vrf_state::active)
            return std::nullopt;
        return v->id;
    }
    void fill_counters(::mgmt::pb::Counters& c) const;
    interface_names interface_names_of() const;
    // The RIB's ifindexes came from a remote zebra: this host's kernel does not name them.
    bool remote_zebra = false;
    ::mgmt::sid_counter_reader sid_counters() const;
    bool compile_now(size_t batch);
    // VPWS services (`dataplane.vpws`, l2vpn_sync.cc): built with the encap source in force,
    // rebuilt when it changes; `show l2vpn` reads them.
    std::vector<fwd::vpws_state> l2vpn;
    void update_l2vpn();
    void fill_l2vpn(::mgmt::pb::L2vpnTable& t) const;
};

}  // namespace srv6d
