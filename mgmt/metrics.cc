#include "mgmt/metrics.hh"

#include <fmt/format.h>

#include <cmath>

namespace mgmt {
namespace {

std::string escape_label(std::string_view v) {
    std::string out;
    for (const char c : v) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

metric_family& family(std::vector<metric_family>& out, std::string name, std::string help, std::string type) {
    out.push_back({std::move(name), std::move(help), std::move(type), {}});
    return out.back();
}

void single(std::vector<metric_family>& out, std::string name, std::string help, std::string type, uint64_t v) {
    family(out, std::move(name), std::move(help), std::move(type)).add({}, v);
}

// HELP text: backslash and newline escaped (both formats).
std::string escape_help(std::string_view v) {
    std::string out;
    for (const char c : v) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

}  // namespace

std::string metric_value::text() const {
    if (!real)
        return std::to_string(integer);
    if (std::isnan(*real))
        return "NaN";
    if (std::isinf(*real))
        return *real > 0 ? "+Inf" : "-Inf";
    return fmt::format("{}", *real);
}

namespace {
std::string label_text(const std::vector<std::pair<std::string, std::string>>& labels) {
    std::string text;
    for (const auto& [k, val] : labels)
        text += fmt::format("{}{}=\"{}\"", text.empty() ? "" : ",", k, escape_label(val));
    return text;
}
}  // namespace

void metric_family::add(std::vector<std::pair<std::string, std::string>> labels, uint64_t v) {
    samples.emplace_back(label_text(labels), metric_value{v, std::nullopt});
}

void metric_family::add_real(std::vector<std::pair<std::string, std::string>> labels, double v) {
    samples.emplace_back(label_text(labels), metric_value{0, v});
}

exposition_format negotiate(std::string_view accept) {
    return accept.find("application/openmetrics-text") != std::string_view::npos ? exposition_format::openmetrics
                                                                                   : exposition_format::prometheus;
}

std::string_view content_type(exposition_format f) {
    return f == exposition_format::openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                               : "text/plain; version=0.0.4; charset=utf-8";
}

void counter_metrics(const pb::Counters& c, std::vector<metric_family>& out) {
    single(out, "srv6d_dataplane_workers", "Dataplane workers (0: srv6d runs without a dataplane)", "gauge",
           c.dataplane() ? c.workers() : 0);
    struct port_counter {
        const char* name;
        const char* help;
        uint64_t (pb::PortCounters::*get)() const;
    };
    static constexpr port_counter port_counters[] = {
        {"srv6d_port_rx_packets_total", "Packets received on the port", &pb::PortCounters::rx_packets},
        {"srv6d_port_rx_bytes_total", "Bytes received on the port", &pb::PortCounters::rx_bytes},
        {"srv6d_port_tx_packets_total", "Packets sent out of the port", &pb::PortCounters::tx_packets},
        {"srv6d_port_tx_bytes_total", "Bytes sent out of the port", &pb::PortCounters::tx_bytes},
        {"srv6d_port_tx_dropped_total", "Packets the port's TX queue refused", &pb::PortCounters::tx_dropped},
        {"srv6d_port_punted_total", "Packets punted to the port's TAP mirror", &pb::PortCounters::punted},
        {"srv6d_port_injected_total", "Packets from the TAP mirror sent out of the port", &pb::PortCounters::injected},
        {"srv6d_port_rx_missed_total", "Packets the device dropped: its rx ring was full (rte_eth_stats imissed)",
         &pb::PortCounters::rx_missed},
        {"srv6d_port_rx_errors_total", "Packets the device received in error (rte_eth_stats ierrors)",
         &pb::PortCounters::rx_errors},
        {"srv6d_port_rx_nombuf_total", "Packets the device dropped for want of an mbuf (rte_eth_stats rx_nombuf)",
         &pb::PortCounters::rx_nombuf},
        {"srv6d_port_tx_errors_total", "Packets the device failed to send (rte_eth_stats oerrors)",
         &pb::PortCounters::tx_errors},
    };
    for (const auto& pc : port_counters) {
        auto& f = family(out, pc.name, pc.help, "counter");
        for (const auto& p : c.ports())
            f.add({{"port", p.name()}, {"vrf", p.vrf()}}, (p.*pc.get)());
    }
    auto& up = family(out, "srv6d_port_link_up", "1 while the port's link is up", "gauge");
    for (const auto& p : c.ports())
        up.add({{"port", p.name()}, {"vrf", p.vrf()}}, p.link_up() ? 1 : 0);
    auto& wrx = family(out, "srv6d_worker_rx_packets_total", "Packets a worker received on the ports", "counter");
    auto& wtx = family(out, "srv6d_worker_tx_packets_total", "Packets a worker sent out of the ports", "counter");
    for (const auto& w : c.per_worker()) {
        wrx.add({{"worker", std::to_string(w.worker())}}, w.rx_packets());
        wtx.add({{"worker", std::to_string(w.worker())}}, w.tx_packets());
    }
    // Sub-ports are ports in every family above; this one says whose VLAN they are.
    auto& vlan = family(out, "srv6d_port_vlan_info", "1 for each 802.1Q sub-port: its parent port and VLAN id", "gauge");
    for (const auto& p : c.ports())
        if (p.vlan() != 0)
            vlan.add({{"port", p.name()}, {"parent", p.parent()}, {"vlan", std::to_string(p.vlan())}}, 1);
    auto& drops = family(out, "srv6d_drops_total", "Packets the workers dropped, by reason", "counter");
    for (const auto& d : c.drops())
        drops.add({{"reason", d.reason()}}, d.packets());
    auto& sp = family(out, "srv6d_sid_packets_total", "Packets that hit a local SID", "counter");
    for (const auto& s : c.sids())
        sp.add({{"sid", s.prefix()}, {"behavior", s.behavior()}}, s.packets());
    auto& sb = family(out, "srv6d_sid_bytes_total", "Bytes that hit a local SID", "counter");
    for (const auto& s : c.sids())
        sb.add({{"sid", s.prefix()}, {"behavior", s.behavior()}}, s.bytes());
    single(out, "srv6d_sid_overflow_packets_total", "Packets of SIDs beyond the per-SID counter slots", "counter",
           c.sid_overflow_packets());
    auto& he = family(out, "srv6d_headend_packets_total", "Packets encapsulated, by headend behavior", "counter");
    for (const auto& h : c.headend())
        he.add({{"behavior", h.behavior()}}, h.packets());
    single(out, "srv6d_headend_chained_total", "H.Encaps packets that needed a header mbuf", "counter",
           c.headend_chained());
    single(out, "srv6d_ip4_fragmented_total", "IPv4 packets without DF fragmented at the headend", "counter",
           c.ip4_fragmented());
    single(out, "srv6d_ip4_fragments_total", "Fragments the headend made of them", "counter", c.ip4_fragments());
    auto& ic = family(out, "srv6d_icmp_sent_total", "ICMP messages the workers sent, by kind", "counter");
    for (const auto& i : c.icmp().sent())
        ic.add({{"message", i.message()}}, i.packets());
    single(out, "srv6d_icmp_rate_limited_total", "ICMP messages not sent: over the rate", "counter",
           c.icmp().rate_limited());
    const auto& nr = c.neigh_resolution();
    auto& n = family(out, "srv6d_neigh_resolution_total", "Neighbor resolutions for rewritten packets, by outcome",
                     "counter");
    n.add({{"outcome", "queued"}}, nr.queued());
    n.add({{"outcome", "queue_full"}}, nr.queue_full());
    n.add({{"outcome", "sent"}}, nr.sent());
    n.add({{"outcome", "rate_limited"}}, nr.rate_limited());
    n.add({{"outcome", "failed"}}, nr.failed());
}

void fpm_metrics(const pb::FpmStatus& s, std::vector<metric_family>& out) {
    single(out, "srv6d_fpm_connected", "1 while zebra is connected over FPM", "gauge", s.connected() ? 1 : 0);
    single(out, "srv6d_fpm_connections_total", "FPM connections accepted", "counter", s.connections());
    single(out, "srv6d_fpm_refused_total", "FPM connections refused (one at a time)", "counter", s.refused());
    single(out, "srv6d_fpm_disconnects_total", "FPM disconnects", "counter", s.disconnects());
    single(out, "srv6d_fpm_framing_resets_total", "FPM streams reset for bad framing", "counter",
           s.framing_resets());
    single(out, "srv6d_fpm_sweeps_total", "Resync sweeps after a reconnect", "counter", s.sweeps());
    const auto& in = s.ingest();
    single(out, "srv6d_fpm_frames_total", "FPM frames received", "counter", in.frames());
    single(out, "srv6d_fpm_bytes_total", "FPM bytes received", "counter", in.bytes());
    single(out, "srv6d_fpm_messages_total", "Messages decoded from FPM frames", "counter", in.messages());
    single(out, "srv6d_fpm_updates_total", "RIB updates decoded", "counter", in.updates());
    // kind: "error" (malformed or refused: logged as a warning) or "ignored" (not for srv6d).
    auto& r = family(out, "srv6d_fpm_reasons_total", "FPM messages skipped or refused, by reason and kind", "counter");
    for (const auto& c : in.reasons())
        r.add({{"reason", c.name()}, {"kind", c.error() ? "error" : "ignored"}}, c.count());
    // While zebra is connected: how long it has been, and since its last valid frame (a stuck
    // zebra stays connected but goes quiet).
    auto& age = family(out, "srv6d_fpm_session_age_seconds", "Age of the FPM connection (while connected)", "gauge");
    auto& idle = family(out, "srv6d_fpm_last_frame_age_seconds",
                        "Seconds since the FPM connection's last valid frame (or its admission), while connected", "gauge");
    if (s.connected()) {
        age.add({}, s.connected_seconds());
        if (s.has_idle_seconds())
            idle.add({}, s.idle_seconds());
    }
    const auto& rib = s.rib();
    auto& size = family(out, "srv6d_rib_entries", "RIB entries, by kind", "gauge");
    size.add({{"kind", "routes"}}, rib.routes());
    size.add({{"kind", "nexthops"}}, rib.nexthops());
    size.add({{"kind", "local_sids"}}, rib.local_sids());
    size.add({{"kind", "sidlists"}}, rib.sidlists());
    size.add({{"kind", "pic_contexts"}}, rib.pic_contexts());
    size.add({{"kind", "tables"}}, rib.tables());
    auto& ch = family(out, "srv6d_rib_changes_total", "RIB changes, by operation", "counter");
    ch.add({{"op", "route_upsert"}}, rib.route_upserts());
    ch.add({{"op", "route_delete"}}, rib.route_deletes());
    ch.add({{"op", "nexthop_upsert"}}, rib.nh_upserts());
    ch.add({{"op", "nexthop_delete"}}, rib.nh_deletes());
    ch.add({{"op", "swept_route"}}, rib.swept_routes());
}

void memory_metrics(const pb::Memory& m, std::vector<metric_family>& out) {
    auto& bytes = family(out, "srv6d_fib_memory_bytes", "Bytes of the compiled tables, by kind", "gauge");
    for (const auto& t : m.tables())
        bytes.add({{"kind", t.kind()}}, t.bytes());
    auto& blocks = family(out, "srv6d_fib_memory_blocks", "Blocks of the compiled tables, by kind", "gauge");
    for (const auto& t : m.tables())
        blocks.add({{"kind", t.kind()}}, t.blocks());
    single(out, "srv6d_fib_memory_pooled_bytes", "Freed table blocks kept for reuse (mapped, not in use)", "gauge",
           m.pooled_bytes());
}

std::string exposition(const std::vector<metric_family>& fams, exposition_format fmt_) {
    std::string out;
    for (const auto& f : fams) {
        // OpenMetrics names a counter's family without the _total its samples carry; 0.0.4 names
        // it as its samples (the Prometheus parser then types them), so the TYPE lines differ.
        std::string_view family = f.name;
        if (fmt_ == exposition_format::openmetrics && f.type == "counter" && family.ends_with("_total"))
            family.remove_suffix(6);
        out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family, escape_help(f.help), family, f.type);
        for (const auto& [labels, v] : f.samples)
            out += labels.empty() ? fmt::format("{} {}\n", f.name, v.text())
                                  : fmt::format("{}{{{}}} {}\n", f.name, labels, v.text());
    }
    if (fmt_ == exposition_format::openmetrics)
        out += "# EOF\n";
    return out;
}

}  // namespace mgmt
