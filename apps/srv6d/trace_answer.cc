#include "apps/srv6d/trace_answer.hh"

#include <arpa/inet.h>
#include <rte_cycles.h>

#include <chrono>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "mgmt/packet_text.hh"
#include "rib/behaviors.hh"

namespace srv6d {
namespace {

namespace pb = ::mgmt::pb;

std::string vrf_name(const vrf::registry& reg, uint16_t id) {
    if (id == vrf::default_vrf_id)
        return "default";
    const vrf::vrf_info* v = reg.find(static_cast<vrf::vrf_id>(id));
    return v != nullptr ? v->name : fmt::format("id {}", id);
}

std::string key_text(const fwd::trace_step& s) {
    char buf[INET6_ADDRSTRLEN];
    return inet_ntop(s.af == 4 ? AF_INET : AF_INET6, s.key, buf, sizeof buf) ? std::string(buf) : std::string("?");
}

const char* fate_name(fwd::trace_fate f) {
    switch (f) {
    case fwd::trace_fate::tx: return "tx";
    case fwd::trace_fate::drop: return "drop";
    case fwd::trace_fate::punt: return "punt";
    case fwd::trace_fate::held: return "held";
    case fwd::trace_fate::rx: return "rx";
    case fwd::trace_fate::unknown: break;
    }
    return "unknown";
}

// The wall clock of a TSC stamp, from one reading of both now.
std::string time_of(uint64_t tsc, uint64_t now_tsc, std::chrono::system_clock::time_point now, double hz) {
    const double ago = now_tsc > tsc ? static_cast<double>(now_tsc - tsc) / hz : 0.0;
    const auto t = std::chrono::time_point_cast<std::chrono::microseconds>(
        now - std::chrono::microseconds(static_cast<int64_t>(ago * 1e6)));
    const auto secs = std::chrono::floor<std::chrono::seconds>(t);
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:06}Z", secs, (t - secs).count());
}

void fill(const fwd::trace_entry& e, fwd::dataplane& dp, const vrf::registry& reg, pb::TracePacket& p,
          uint64_t now_tsc, std::chrono::system_clock::time_point now, double hz) {
    const fwd::trace_record& r = e.rec;
    p.set_worker(e.worker);
    p.set_lcore(dp.lcore_of(e.worker));
    p.set_time(time_of(r.tsc, now_tsc, now, hz));
    if (r.in_port != fwd::trace_any_port) {
        p.set_in_port(dp.port_name(r.in_port));
        p.set_vrf(vrf_name(reg, r.vrf));
        p.set_family(r.af == 4 ? "ipv4" : r.af == 6 ? "ipv6" : "other");
    }
    for (uint8_t i = 0; i < r.n_steps && i < fwd::trace_max_steps; ++i) {
        const fwd::trace_step& s = r.steps[i];
        pb::TraceLookup& l = *p.add_lookups();
        l.set_vrf(vrf_name(reg, s.vrf));
        l.set_key(key_text(s));
        l.set_nexthop(s.nh);
        l.set_kind(std::string(fib::name(static_cast<fib::nh_kind>(s.kind))));
        if (static_cast<fib::nh_kind>(s.kind) == fib::nh_kind::local_sid)
            l.set_behavior(std::string(rib::behavior_name(static_cast<rib::behavior>(s.action))));
    }
    p.set_fate(fate_name(r.fate));
    if (r.has_reason) {
        p.set_drop_reason(std::string(fwd::name(r.reason)));
        p.set_drop_text(std::string(fwd::describe(r.reason)));
    }
    p.set_icmp(r.icmp != 0);
    if (r.out_port != fwd::trace_any_port)
        p.set_out_port(dp.port_name(r.out_port));
    const auto kept = [](uint32_t len) { return len < fwd::trace_snap ? len : fwd::trace_snap; };
    if (r.rx_len != 0) {
        p.set_rx_length(r.rx_len);
        p.set_rx(std::string(reinterpret_cast<const char*>(r.rx), kept(r.rx_len)));
        for (auto& h : ::mgmt::describe_frame(r.rx, kept(r.rx_len)))
            p.add_rx_headers(std::move(h));
    }
    if (r.out_len != 0) {
        p.set_tx_length(r.out_len);
        p.set_tx(std::string(reinterpret_cast<const char*>(r.out), kept(r.out_len)));
        for (auto& h : ::mgmt::describe_frame(r.out, kept(r.out_len)))
            p.add_tx_headers(std::move(h));
    }
}

}  // namespace

std::string trace_answer::operator()(const pb::Request& req, fwd::dataplane& dp, const vrf::registry& reg,
                                     pb::TraceRecords& out) {
    fwd::trace_hub* hub = dp.trace();
    if (hub == nullptr)
        return "the dataplane is not running";
    if (req.has_trace_start()) {
        const pb::TraceStart& s = req.trace_start();
        fwd::trace_mode mode{};
        if (s.mode() == "trace")
            mode = fwd::trace_mode::trace;
        else if (s.mode() == "rx")
            mode = fwd::trace_mode::capture_rx;
        else if (s.mode() == "tx")
            mode = fwd::trace_mode::capture_tx;
        else if (s.mode() == "drop")
            mode = fwd::trace_mode::capture_drop;
        else
            return fmt::format("unknown trace mode '{}': trace, rx, tx or drop", s.mode());
        if (s.count() == 0 || s.count() > 65535)
            return "count must be 1 to 65535";
        uint16_t port = fwd::trace_any_port;
        if (s.has_port()) {
            const auto id = dp.port_by_name(s.port());
            if (!id)
                return fmt::format("no port '{}'", s.port());
            port = *id;
        } else if (mode != fwd::trace_mode::trace) {
            return "a capture needs a port";
        }
        hub->arm(mode, port, static_cast<uint16_t>(s.count()));
        _mode = s.mode();
        _port = s.has_port() ? s.port() : "";
    } else if (req.has_trace_stop()) {
        hub->disarm();
        _mode = "off";
    } else {
        std::vector<fwd::trace_entry> got;
        const size_t max = req.trace_read().max() != 0 ? req.trace_read().max() : SIZE_MAX;
        hub->take(got, max);
        const uint64_t now_tsc = rte_rdtsc();
        const auto now = std::chrono::system_clock::now();
        const double hz = static_cast<double>(rte_get_tsc_hz());
        for (const auto& e : got)
            fill(e, dp, reg, *out.add_packets(), now_tsc, now, hz);
    }
    out.set_mode(_mode);
    out.set_port(_port);
    out.set_armed(hub->mode() != fwd::trace_mode::off);
    out.set_lost(hub->lost());
    out.set_workers(hub->workers());
    return {};
}

}  // namespace srv6d
