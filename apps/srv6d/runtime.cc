#include "apps/srv6d/runtime.hh"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"  // g++ 12 false positive in Asio, see fpm/listener.hh
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#pragma GCC diagnostic pop

#include <net/if.h>
#include <systemd/sd-daemon.h>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include "apps/srv6d/bindings.hh"
#include "rib/behaviors.hh"
#include "apps/srv6d/paced_compile.hh"
#include "apps/srv6d/route_answer.hh"
#include "apps/srv6d/trace_answer.hh"
#include "apps/srv6d/compile_metrics.hh"
#include "apps/srv6d/stop_bound.hh"
#include "rib/rib.hh"
#include "fib/control/compiler.hh"
#include "fib/datapath/rcu.hh"
#include "forward/control/dataplane.hh"
#include "forward/control/eal.hh"
#include "host/kernel_routes.hh"
#include "host/kernel_state.hh"
#include "host/neigh_resolve.hh"
#include "host/resolve_limiter.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/listener.hh"
#include "fpm/session.hh"
#include "mgmt/answer.hh"
#include "mgmt/names.hh"
#include "mgmt/metrics.hh"
#include "mgmt/metrics_server.hh"
#include "mgmt/render.hh"
#include "mgmt/server.hh"
#include "util/log.hh"
#include "vrf/sid_parse.hh"

namespace srv6d {
namespace {

using util::level;
using util::log;

// systemd's Type=notify protocol; a no-op without NOTIFY_SOCKET (not run by systemd).
void notify(const std::string& state) {
    if (const int rc = sd_notify(0, state.c_str()); rc < 0)
        log(level::warn, "srv6d: cannot notify systemd ({}): {}", state.substr(0, state.find('\n')), std::strerror(-rc));
}

std::string join(const std::vector<std::string>& v, std::string_view sep = " ") {
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : std::string(sep)) + s;
    return out;
}

// Everything the control thread owns. Members are destroyed in reverse order: the io objects
// (mgmt server, listener) go before the state their handlers read.
struct control_plane {
    control_plane(const config& c, reparse_fn rp) : cfg(c), reparse(std::move(rp)) {}

    // The configuration in force: what a reload changed replaces its fields (bindings reads it).
    config cfg;
    reparse_fn reparse;
    boost::asio::io_context io;
    rib::rib rib;
    fpm::ingest_stats stats;
    fpm::session_info session;
    bindings vrfs{io, cfg, rib};  // VRFs, SID bindings, encap source
    // The compiled tables the workers read; published by pointer swap, old versions freed after
    // a QSBR grace period. Declared after the RIB and bindings they read, so destroyed first.
    fib::qsbr_domain rcu{max_workers};
    fib::compiler compiler{rcu};
    static constexpr uint32_t max_workers = 16;
    // The workers read the compiler's tables: declared after it, so stopped and gone first.
    std::optional<fwd::dataplane> dp;
    trace_answer trace;  // srv6ctl trace / capture
    // Compile at once when idle, else at most every 50 ms or after 100 000 updates while FPM
    // updates keep coming (docs/srv6d.md: larger batches, 2-3x the compiler's throughput).
    paced_compile compiles{io, [this](size_t batch) { return compile_now(batch); }, std::chrono::milliseconds(50), 100'000};
    // Set by shutdown(): no handler re-arms its timer or wait after it. cancel() only reaches
    // a wait still pending; one whose completion was already queued (a 20 ms or 100 ms timer
    // that expired just before the signal's handler ran) runs with success and would re-arm
    // itself, so io.run() never ran out of work and srv6d ignored SIGTERM.
    bool stopping = false;
    std::optional<fpm::listener> listener;
    std::optional<::mgmt::server> mgmt;  // ::mgmt: srv6d::mgmt is the generated protobuf namespace
    std::optional<::mgmt::metrics_server> metrics;  // metrics.listen set
    std::string scrape() const;
    boost::asio::signal_set signals{io, SIGINT, SIGTERM, SIGHUP};
    void reload();
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
    ::mgmt::sid_counter_reader sid_counters() const;
    bool compile_now(size_t batch);
};

// The kernel's names (ifindexes are the kernel's: zebra's nexthops name them) and srv6d's ports.
interface_names control_plane::interface_names_of() const {
    interface_names n;
    n.kernel = [](uint32_t ifindex) {
        char buf[IF_NAMESIZE] = {};
        return ::if_indextoname(ifindex, buf) ? std::string(buf) : std::string();
    };
    n.port = [this](uint32_t ifindex) -> std::optional<std::string> {
        const fwd::adj_view* a = dp ? dp->adjacency() : nullptr;
        for (size_t i = 0; i < cfg.ports.size(); ++i) {
            const uint32_t known = a && i < a->ports().size() ? a->ports()[i].ifindex : cfg.ports[i].ifindex;
            if (known != 0 && known == ifindex)
                return cfg.ports[i].name;
        }
        return std::nullopt;
    };
    return n;
}

// The metrics endpoint's body: what `show counters`, `show fpm` and `show memory` answer, and the
// compiler's.
std::string control_plane::scrape() const {
    std::vector<::mgmt::metric_family> fams;
    ::mgmt::pb::Counters c;
    fill_counters(c);
    ::mgmt::counter_metrics(c, fams);
    ::mgmt::fpm_metrics(::mgmt::render_fpm(session, stats, rib), fams);
    compile_metrics(compiler.stats(), fams);
    ::mgmt::pb::Memory mem;
    fill_memory(mem);
    ::mgmt::memory_metrics(mem, fams);
    return ::mgmt::exposition(fams);
}

// One snapshot of the workers' counters, read per SID through the compiler's slot of it.
::mgmt::sid_counter_reader control_plane::sid_counters() const {
    auto snap = std::make_shared<fwd::counters_snapshot>(dp->counters());
    return [this, snap](const rib::route_key& k) -> std::optional<std::pair<uint64_t, uint64_t>> {
        const auto counter = compiler.sid_counter_of(k);
        if (!counter)
            return std::nullopt;
        return snap->sid(counter->slot, counter->gen);
    };
}

void control_plane::fill_counters(::mgmt::pb::Counters& c) const {
    c.set_dataplane(dp.has_value());
    if (!dp)
        return;
    const fwd::counters_snapshot s = dp->counters();
    c.set_workers(s.workers);
    for (const auto& p : s.ports) {
        auto* o = c.add_ports();
        o->set_name(p.name);
        o->set_port_id(p.port_id);
        o->set_ifindex(p.ifindex);
        o->set_vrf(p.vrf);
        o->set_rx_packets(p.rx_packets);
        o->set_rx_bytes(p.rx_bytes);
        o->set_tx_packets(p.tx_packets);
        o->set_tx_bytes(p.tx_bytes);
        o->set_tx_dropped(p.tx_dropped);
        o->set_punted(p.punted);
        o->set_injected(p.injected);
        o->set_rx_missed(p.rx_missed);
        o->set_rx_errors(p.rx_errors);
        o->set_rx_nombuf(p.rx_nombuf);
        o->set_tx_errors(p.tx_errors);
        o->set_tap(p.tap);
        o->set_link_up(p.link_up);
        o->set_speed_mbps(p.speed_mbps);
        o->set_mtu(p.mtu);
        o->set_queues(p.queues);
        o->set_parent(p.parent);
        o->set_vlan(p.vlan);
    }
    for (size_t i = 0; i < fwd::drop_reason_count; ++i) {
        const auto r = static_cast<fwd::drop_reason>(i);
        auto* d = c.add_drops();
        d->set_reason(std::string(fwd::name(r)));
        d->set_description(std::string(fwd::describe(r)));
        d->set_packets(s.drops[i]);
    }
    for (const auto& e : rib.local_sids()) {
        const auto counter = compiler.sid_counter_of(e.r->key);
        auto* o = c.add_sids();
        o->set_prefix(rib::to_string(e.r->key.dst));
        o->set_behavior(std::string(rib::behavior_name(e.sid.action)));
        if (counter) {
            const auto [pk, by] = s.sid(counter->slot, counter->gen);
            o->set_packets(pk);
            o->set_bytes(by);
        }
    }
    c.set_sid_overflow_packets(s.sid_overflow_packets);
    c.set_headend_chained(s.headend_chained);
    auto* nr = c.mutable_neigh_resolution();
    nr->set_queued(s.resolve_queued);
    nr->set_queue_full(s.resolve_lost);
    nr->set_sent(s.resolve_sent);
    nr->set_rate_limited(s.resolve_limited);
    nr->set_failed(s.resolve_failed);
    nr->set_held(s.held);
    nr->set_released(s.released);
    nr->set_hold_dropped(s.drops[static_cast<size_t>(fwd::drop_reason::neigh_hold_full)] +
                         s.drops[static_cast<size_t>(fwd::drop_reason::neigh_hold_timeout)]);
    auto* ic = c.mutable_icmp();
    for (size_t k = 0; k < fwd::icmp_kinds; ++k) {
        auto* o = ic->add_sent();
        o->set_message(fwd::icmp_kind_names[k]);
        o->set_packets(s.icmp[k]);
    }
    ic->set_rate_limited(s.icmp_rate_limited);
    ic->set_no_source(s.icmp_no_source);
    for (size_t m = 0; m < fwd::headend_modes; ++m) {
        auto* h = c.add_headend();
        h->set_behavior(std::string(::mgmt::encap_mode_name(static_cast<rib::encap_mode>(m))));
        h->set_packets(s.headend[m]);
    }
    for (const auto& w : s.per_worker) {
        auto* o = c.add_per_worker();
        o->set_worker(w.id);
        if (w.lcore)
            o->set_lcore(*w.lcore);
        o->set_rx_packets(w.rx_packets);
        o->set_tx_packets(w.tx_packets);
        o->set_dropped(w.dropped);
    }
}

bool control_plane::compile_now(size_t batch) {
    if (compiler.compile(rib, vrfs.registry(), vrfs.encap())) {
        const auto& st = compiler.stats();
        log(level::debug, "fib: published compiled tables #{} ({} updates in this batch, {} route updates, {} LPM changes)",
            st.publications, batch, st.route_updates, st.lpm_changes);
    }
    // Tables published two-level under churn are flattened once quiet: compile again a pacer
    // interval later (nothing else to do then; a handful of such compiles after a burst).
    return compiler.settling();
}

bool control_plane::start() {
    vrfs.on_synced([this] {
        compiles.changed(0);  // RIB burst (counted below), VRF or encap source change
        if (dp)  // a VRF change moves ports between VRFs (cheap when nothing moved)
            dp->update_vrfs([this](const std::string& n) { return active_vrf(n); });
        rcu.reclaim();
    });
    // Before zebra connects and before the first sync binds them: config SIDs are pinned in the
    // RIB (never swept), and zebra's route at the same prefix shadows one (docs/rib.md).
    for (const auto& s : cfg.sids)
        rib.add_config_route(vrf::to_route(s));
    if (!cfg.sids.empty())
        log(level::info, "sids: {} configured", cfg.sids.size());
    vrfs.start();
    if (cfg.dataplane_enabled && !start_dataplane())
        return false;
    if (!start_fpm() || !start_mgmt() || !start_metrics())
        return false;
    watch_signals();
    flush_log();
    return true;
}

// The ports and workers; with TAP mirrors, the host path that follows the kernel.
bool control_plane::start_dataplane() {
    fwd::dataplane_options o;
    o.ports = cfg.ports;
    o.neighbors = cfg.neighbors;
    o.mbufs = cfg.mbufs;
    o.punt_rate = cfg.punt_rate;
    o.punt_burst = cfg.punt_burst;
    o.icmp_rate = cfg.icmp_rate;
    o.icmp_burst = cfg.icmp_burst;
    o.idle_sleep_us = cfg.idle_sleep_us;
    dp.emplace(rcu, compiler.cell());
    std::string error;
    if (!dp->open(o, [this](const std::string& n) { return active_vrf(n); }, error)) {
        log(level::error, "{}", error);
        return false;
    }
    log(level::info, "dataplane: {} port(s), {} worker(s)", cfg.ports.size(), dp->workers());
    poll_links();
    return !dp->has_taps() || start_host();
}

// The kernel's neighbors and addresses on the TAP mirrors, and neighbor resolution through them.
bool control_plane::start_host() {
    kernel.emplace();
    const std::string why = kernel->start();
    if (!why.empty()) {
        log(level::error, "host: cannot follow the kernel's neighbors and addresses: {}", why);
        return false;
    }
    kernel_changed();
    kernel_fd.emplace(io, kernel->fd());
    watch_kernel();
    resolver.emplace();
    if (const std::string e = resolver->open(); !e.empty()) {
        log(level::error, "host: cannot ask the kernel to resolve neighbors: {}", e);
        return false;
    }
    resolve_neighbors();
    log(level::info, "host: following the kernel's neighbors and addresses on the TAP mirrors");
    return true;
}

// The FPM listener: zebra's updates go into the RIB and wake the compile pacer.
bool control_plane::start_fpm() {
    fpm::listener_options lo;
    lo.address = cfg.fpm_listen;
    lo.port = cfg.fpm_port;
    lo.resync_quiet = cfg.resync_quiet;
    lo.resync_max = cfg.resync_max;
    std::vector<std::string> missing;
    lo.admission = fpm::resolve_users(cfg.fpm_allow_users, missing);
    lo.admission.remotes = cfg.fpm_allow_addresses;
    for (const auto& m : missing)
        log(level::info, "fpm: no user '{}' on this host (fpm.allow-user): not admitted", m);
    lo.takeover_idle = cfg.takeover_idle;
    lo.first_frame_timeout = cfg.first_frame_timeout;
    rib.set_limits({cfg.rib_max_routes, cfg.rib_max_routes_per_table, cfg.rib_max_nexthops});
    fpm::listener_hooks hooks;
    if (cfg.kernel_check)
        hooks.kernel_routes = [](const std::vector<rib::table_id>& tables) {
            std::string error;
            auto keys = host::kernel_route_keys(tables, error);
            if (!keys)
                log(level::warn, "fpm: {}", error);
            return keys;
        };
    // A batch in the RIB: the pacer decides when the tables are compiled again.
    hooks.on_batch_applied = [this](std::span<const fpm::update> u) {
        compiles.add(u.size());
        vrfs.rib_changed();
    };
    hooks.on_sweep = [this](size_t) {
        vrfs.rib_changed();
        log(level::info, "srv6d: RIB after resync: {} routes, {} nexthop objects", rib.routes().size(),
            rib.nexthops().size());
    };
    // A reconnect of the same zebra replays main and its VRFs' tables only: sweep just those.
    hooks.replayed_table = [this](rib::table_id t) { return vrfs.replayed_table(t); };
    listener.emplace(io, lo, rib, stats, session, std::move(hooks));
    std::string error;
    if (!listener->start(error)) {
        log(level::error, "{}", error);
        return false;
    }
    return true;
}

// The management socket srv6ctl talks to.
bool control_plane::start_mgmt() {
    try {
        // The handler runs on this io_context's thread: it may read the RIB without locks.
        mgmt.emplace(io, cfg.mgmt_socket, [this](const ::mgmt::pb::Request& req) {
            ::mgmt::daemon_view view(rib, stats, session);
            vrfs.fill_view(view);
            view.counters = [this](::mgmt::pb::Counters& c) { fill_counters(c); };
            view.neighbors = [this](::mgmt::pb::NeighborTable& t) { fill_neighbors(t); };
            view.memory = [this](::mgmt::pb::Memory& m) { fill_memory(m); };
            view.route_lookup = [this](const ::mgmt::pb::ShowRoute& q, ::mgmt::pb::Response& r) {
                answer_show_route(q, compiler, vrfs.registry(), rib, interface_names_of(), r);
            };
            view.ifname = [names = interface_names_of()](uint32_t ifindex) {
                std::string n = names.kernel(ifindex);
                if (n.empty())
                    if (auto p = names.port(ifindex))
                        n = *p;
                return n;
            };
            if (dp) {
                view.clear_counters = [this] { dp->clear_counters(); };
                view.sid_counters = [this] { return sid_counters(); };
                view.trace = [this](const ::mgmt::pb::Request& q, ::mgmt::pb::TraceRecords& t) {
                    return trace(q, *dp, vrfs.registry(), t);
                };
            }
            view.set_log_level = [](const std::string& s, ::mgmt::pb::LogLevel& out) {
                util::level l{};
                if (!util::parse_level(s, l))
                    return fmt::format("unknown log level '{}': error, warn, info or debug", s);
                out.set_previous(std::string(util::to_string(util::current_level())));
                out.set_level(std::string(util::to_string(l)));
                util::set_level(l);
                log(level::info, "srv6d: log level {} (was {}), set by srv6ctl", out.level(), out.previous());
                return std::string();
            };
            return ::mgmt::answer(req, view);
        }, ::mgmt::server_options{.max_connections = cfg.mgmt_max_clients, .group = cfg.mgmt_group});
    } catch (const std::exception& e) {
        log(level::error, "mgmt: cannot serve {}: {}", cfg.mgmt_socket, e.what());
        return false;
    }
    return true;
}

// Off unless metrics.listen is set (docs/observability.md).
bool control_plane::start_metrics() {
    if (!cfg.metrics_listen)
        return true;
    try {
        metrics.emplace(io, *cfg.metrics_listen, [this] { return scrape(); });
    } catch (const std::exception& e) {
        log(level::error, "{}", e.what());
        return false;
    }
    return true;
}

void control_plane::watch_signals() {
    signals.async_wait([this](const boost::system::error_code& ec, int signo) {
        if (ec)
            return;
        if (signo == SIGHUP) {
            reload();
            watch_signals();
            return;
        }
        log(level::info, "srv6d: {} received, shutting down", signo == SIGINT ? "SIGINT" : "SIGTERM");
        shutdown();
    });
}

void control_plane::flush_log() {
    log_timer.expires_after(std::chrono::seconds(5));
    log_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || stopping)
            return;
        util::flush_suppressed();
        flush_log();
    });
}

std::string control_plane::status() const {
    return fmt::format("FPM on {}:{}, {}", cfg.fpm_listen, listener ? listener->port() : cfg.fpm_port,
                       dp ? fmt::format("forwarding on {} port(s)", cfg.ports.size()) : std::string("no dataplane"));
}

// SIGHUP: the file again, with the same command line (which still wins). What can change at run
// time is applied on this thread like any other change (VRF claims, config SIDs and the encap
// source go through the registry and the RIB, then one paced compile; the punt policer with the
// next adjacency snapshot); the workers keep forwarding throughout. What cannot is reported.
void control_plane::reload() {
    notify("RELOADING=1\nSTATUS=reloading the configuration");
    log(level::info, "srv6d: SIGHUP: reloading {}", cfg.config_file.empty() ? "(no config file: the command line)" : cfg.config_file);
    const parse_result r = reparse();
    if (r.what != action::run) {
        log(level::error, "reload: {}: nothing changed", r.text);
        notify("READY=1\nSTATUS=" + status());
        return;
    }
    const config& n = r.cfg;
    auto restart_only = [](bool changed, std::string_view keys) {
        if (changed)
            log(level::warn, "reload: {} changed: this takes a restart, the running value stays", keys);
    };
    restart_only(n.fpm_listen != cfg.fpm_listen || n.fpm_port != cfg.fpm_port, "fpm.listen/fpm.port");
    restart_only(n.resync_quiet != cfg.resync_quiet || n.resync_max != cfg.resync_max,
                 "fpm.resync-quiet-ms/fpm.resync-max-ms");
    restart_only(n.mgmt_socket != cfg.mgmt_socket, "mgmt.socket");
    restart_only(n.eal_args != cfg.eal_args, "eal.args");
    restart_only(n.dataplane_enabled != cfg.dataplane_enabled, "dataplane.enabled");
    restart_only(n.ports != cfg.ports, "dataplane.port");
    restart_only(n.neighbors != cfg.neighbors, "dataplane.neighbor");
    restart_only(n.mbufs != cfg.mbufs, "dataplane.mbufs");

    std::vector<std::string> applied;
    // Against the level in force: `srv6ctl set log-level` lasts until the next reload.
    if (n.log_level != util::current_level()) {
        applied.push_back(fmt::format("log.level {} (was {})", util::to_string(n.log_level), util::to_string(util::current_level())));
        util::set_level(n.log_level);
    }
    cfg.log_level = n.log_level;
    if (n.log_target != cfg.log_target) {
        applied.push_back(fmt::format("log.target {}", util::to_string(n.log_target)));
        cfg.log_target = n.log_target;
        util::set_target(n.log_target);
    }
    if (n.punt_rate != cfg.punt_rate || n.punt_burst != cfg.punt_burst) {
        applied.push_back(fmt::format("dataplane.punt-rate {} punt-burst {}", n.punt_rate, n.punt_burst));
        cfg.punt_rate = n.punt_rate;
        cfg.punt_burst = n.punt_burst;
        if (dp)
            dp->set_punt(cfg.punt_rate, cfg.punt_burst);
    }
    if (n.idle_sleep_us != cfg.idle_sleep_us) {
        applied.push_back(fmt::format("dataplane.idle-sleep {}", n.idle_sleep_us));
        cfg.idle_sleep_us = n.idle_sleep_us;
        if (dp)
            dp->set_idle_sleep(cfg.idle_sleep_us);
    }
    bool bindings_changed = false;
    if (n.encap_source != cfg.encap_source) {
        applied.push_back(fmt::format("encap.source {}", n.encap_source ? rib::to_string(*n.encap_source) : "(none)"));
        cfg.encap_source = n.encap_source;
        bindings_changed = true;
    }
    if (n.vrfs != cfg.vrfs) {
        applied.push_back(fmt::format("vrf lines ({} now)", n.vrfs.size()));
        cfg.vrfs = n.vrfs;
        bindings_changed = true;
    }
    if (n.sids != cfg.sids) {
        size_t removed = 0, added = 0;
        for (const auto& o : cfg.sids) {
            const bool kept = std::any_of(n.sids.begin(), n.sids.end(), [&](const auto& s) { return s.sid == o.sid; });
            if (!kept) {
                rib.remove_config_route(vrf::to_route(o).key);
                ++removed;
            }
        }
        for (const auto& s : n.sids) {
            const bool same = std::find(cfg.sids.begin(), cfg.sids.end(), s) != cfg.sids.end();
            if (!same) {
                rib.add_config_route(vrf::to_route(s));
                ++added;
            }
        }
        applied.push_back(fmt::format("sids: {} added or changed, {} removed ({} now)", added, removed, n.sids.size()));
        cfg.sids = n.sids;
        compiles.add(added + removed);
        vrfs.rib_changed();  // bind the new SIDs, then compile
    }
    if (bindings_changed)
        vrfs.reload();
    log(level::info, "reload: {}", applied.empty() ? std::string("nothing to apply") : "applied " + join(applied, "; "));
    notify("READY=1\nSTATUS=" + status());
}

// The compiled tables' memory (live blocks by kind, pooled) and the dataplane's mbuf pools.
void control_plane::fill_memory(::mgmt::pb::Memory& m) const {
    table_memory(compiler.stats(), m);
    if (dp)
        for (const fwd::pool_usage& p : dp->pools()) {
            auto* o = m.add_pools();
            o->set_name(p.name);
            o->set_size(p.size);
            o->set_in_use(p.in_use);
            o->set_available(p.available);
            o->set_data_room(p.data_room);
        }
}

void control_plane::fill_neighbors(::mgmt::pb::NeighborTable& t) const {
    t.set_dataplane(dp.has_value());
    const fwd::adj_view* a = dp ? dp->adjacency() : nullptr;  // the control thread's own snapshot
    if (a == nullptr)
        return;
    auto port_name = [&](uint16_t id) {
        for (size_t i = 0; i < a->ports().size(); ++i)
            if (a->ports()[i].port_id == id)
                return cfg.ports[i].name;
        return std::to_string(id);
    };
    for (const auto& n : a->neighbors()) {
        auto* o = t.add_neighbors();
        o->set_port(port_name(n.port_id));
        o->set_address(rib::to_string(n.addr));
        o->set_mac(fwd::to_string(n.mac));
        bool configured = false;
        for (const auto& c : cfg.neighbors)
            configured |= c.addr == n.addr && c.mac == n.mac && port_name(n.port_id) == c.port;
        o->set_source(configured ? "config" : "kernel");
    }
    if (kernel) {
        for (const auto& k : kernel->addresses())
            for (const auto& p : a->ports())
                if (p.ifindex == k.ifindex && p.tap_port != fwd::port_none) {
                    auto* o = t.add_addresses();
                    o->set_address(rib::to_string(k.addr));
                    const auto* v = vrfs.registry().find(p.vrf);
                    o->set_vrf(v ? v->name : std::string(vrf::default_vrf_name));
                }
    }
}

void control_plane::kernel_changed() {
    fwd::kernel_view k;
    for (const auto& n : kernel->neighbors()) {
        fwd::mac_addr m;
        std::copy(n.mac.begin(), n.mac.end(), m.bytes);
        k.neighbors.push_back({n.ifindex, n.addr, m});
    }
    for (const auto& a : kernel->addresses())
        k.addresses.push_back({a.ifindex, a.addr});
    dp->set_kernel_view(k);
    rcu.reclaim();
}

void control_plane::watch_kernel() {
    kernel_fd->async_wait(boost::asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code& ec) {
        if (ec || stopping)
            return;
        if (kernel->process_events())
            kernel_changed();
        watch_kernel();
    });
}

// Every 20 ms: short against the kernel's own resolution (a round trip on the wire, then
// host::kernel_state's notification), cheap when the queues are empty (one dequeue per worker).
void control_plane::resolve_neighbors() {
    resolve_timer.expires_after(std::chrono::milliseconds(20));
    resolve_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || stopping || !dp || !resolver)
            return;
        resolve_buf.clear();
        dp->take_resolve_requests(resolve_buf);
        const auto now = host::resolve_limiter::clock::now();
        limiter.expire(now);
        uint64_t sent = 0, limited = 0, failed = 0;
        for (const auto& q : resolve_buf) {
            const uint32_t ifindex = dp->tap_ifindex(q.port_id);
            if (ifindex == 0)
                continue;  // a port without a mirror: nobody to resolve it (configure a neighbor)
            rib::ip_addr a;
            a.af = q.af == 4 ? rib::family::ipv4 : rib::family::ipv6;
            std::copy(q.addr, q.addr + (q.af == 4 ? 4 : 16), a.bytes.begin());
            if (!limiter.allow(ifindex, a, now)) {
                ++limited;
                continue;
            }
            if (const std::string e = resolver->resolve(ifindex, a); !e.empty()) {
                ++failed;
                log(level::debug, "host: resolving {} on ifindex {}: {}", rib::to_string(a), ifindex, e);
                continue;
            }
            ++sent;
            log(level::debug, "host: asked the kernel to resolve {} on ifindex {}", rib::to_string(a), ifindex);
        }
        if (!resolve_buf.empty())
            dp->count_resolutions(sent, limited, failed);
        resolve_neighbors();
    });
}

void control_plane::poll_links() {
    // 100 ms: a down link is followed (ECMP repaired, TAP mirrored) well before zebra would.
    link_timer.expires_after(std::chrono::milliseconds(100));
    link_timer.async_wait([this](const boost::system::error_code& ec) {
        if (ec || stopping || !dp)
            return;
        dp->refresh_links();
        rcu.reclaim();
        poll_links();
    });
}

// On the control thread. Once every io object is closed, io.run() runs out of work and returns.
void control_plane::shutdown() {
    stop_bound::arm();
    stop_bound::step("closing the listeners and cancelling the timers");
    stopping = true;
    notify("STOPPING=1\nSTATUS=shutting down");
    boost::system::error_code ignored;
    log_timer.cancel();
    signals.cancel(ignored);
    link_timer.cancel();
    resolve_timer.cancel();
    if (kernel_fd)
        kernel_fd->cancel(ignored);
    compiles.stop();
    vrfs.stop();
    if (listener)
        listener->stop();
    if (mgmt)
        mgmt->close();
    if (metrics)
        metrics->close();
    if (dp)
        dp->request_stop();  // the main lcore waits for the workers (rte_eal_wait_lcore)
    stop_bound::step("waiting for the control thread's pending handlers");
}

}  // namespace

int run(const config& cfg, const std::string& prog, reparse_fn reparse) {
    // Peers that vanish mid-write must not kill the daemon (Asio sends with MSG_NOSIGNAL, but
    // libraries may not). A SIGHUP before the control thread handles it (during EAL start-up)
    // must not either: it is ignored until then.
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGHUP, SIG_IGN);

    log(level::info, "srv6d starting: fpm {}:{}, mgmt {}, dataplane {}{}", cfg.fpm_listen, cfg.fpm_port,
        cfg.mgmt_socket, cfg.dataplane_enabled ? "on" : "off",
        cfg.config_file.empty() ? std::string{} : ", config " + cfg.config_file);

    // EAL first, on the main thread: it pins the calling thread and starts its own threads.
    // The control thread started below would inherit that pinning, i.e. share the CPU a worker
    // busy-polls (with `-l 0`, the default, the worker runs on the main lcore itself). It goes
    // to the CPUs no lcore uses instead, as DPDK's own control threads do.
    cpu_set_t control_cpus;
    CPU_ZERO(&control_cpus);
    if (cfg.dataplane_enabled) {
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        const bool have_allowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
        std::string error = fwd::eal_preflight(cfg.eal_args);
        if (!error.empty()) {
            log(level::error, "eal: {}", error);
            return 1;
        }
        log(level::info, "eal: {}", join(cfg.eal_args));
        if (!fwd::eal_init(prog, cfg.eal_args, error)) {
            log(level::error, "eal: {} (set [dataplane] enabled = false to run the control plane alone)", error);
            return 1;
        }
        const cpu_set_t lcores = fwd::eal_lcore_cpus();
        if (have_allowed)
            control_cpus = fwd::control_cpus(allowed, lcores);
        log(level::info, "eal: lcores on CPUs {}, control thread on CPUs {}", fwd::cpu_list(lcores),
            CPU_COUNT(&control_cpus) ? fwd::cpu_list(control_cpus) : "of the main lcore (no other CPU allowed)");
    }

    int rc = 0;
    {
        control_plane cp(cfg, std::move(reparse));
        if (!cp.start()) {
            rc = 1;
        } else {
            // Ports started (open() in start()), the FPM listener bound: zebra may connect.
            notify("READY=1\nSTATUS=" + cp.status());
            // The control thread: sole owner of the RIB, the FPM connection and the mgmt socket.
            std::thread control([&cp, &rc, &control_cpus] {
                pthread_setname_np(pthread_self(), "srv6d-control");
                if (CPU_COUNT(&control_cpus) &&
                    pthread_setaffinity_np(pthread_self(), sizeof control_cpus, &control_cpus) != 0)
                    log(level::warn, "srv6d: cannot move the control thread to CPUs {}", fwd::cpu_list(control_cpus));
                try {
                    cp.io.run();
                } catch (const std::exception& e) {
                    log(level::error, "srv6d: control thread failed: {}", e.what());
                    rc = 1;
                    cp.shutdown();
                    cp.io.run();  // let the closed objects finish their handlers
                }
                stop_bound::step("control thread done");
            });
            if (cp.dp && cp.dp->launch() == 0) {
                cp.dp->run_here();  // no worker lcore: the main lcore forwards until shutdown
                stop_bound::step("the main lcore stopped forwarding");
            }
            control.join();
            if (cp.dp) {
                stop_bound::step("stopping the worker lcores");
                cp.dp->stop();
            }
            stop_bound::step("closing the ports and freeing the tables");
        }
    }
    if (cfg.dataplane_enabled) {
        stop_bound::step("cleaning up EAL");
        fwd::eal_cleanup();
    }
    stop_bound::done();
    util::flush_suppressed(true);
    log(level::info, "srv6d stopped");
    return rc;
}

}  // namespace srv6d
