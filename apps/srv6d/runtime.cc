// The srv6d process: EAL, the control thread and its lifecycle (signals, shutdown).
#include "apps/srv6d/runtime.hh"

#include <systemd/sd-daemon.h>

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <exception>
#include <thread>

#include "apps/srv6d/control_plane.hh"
#include "apps/srv6d/stop_bound.hh"
#include "forward/control/eal.hh"
#include "util/log.hh"

namespace srv6d {

using util::level;
using util::log;

// systemd's Type=notify protocol; a no-op without NOTIFY_SOCKET (not run by systemd).
void notify(const std::string& state) {
    if (const int rc = sd_notify(0, state.c_str()); rc < 0)
        log(level::warn, "srv6d: cannot notify systemd ({}): {}", state.substr(0, state.find('\n')), std::strerror(-rc));
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : std::string(sep)) + s;
    return out;
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
