#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {

// Ports as a table, then the SIDs (like the kernel's `ip -s route` with `count`), then the drop
// reasons that are not zero (`--json` lists every one).
std::string format_counters(const pb::Counters& c) {
    if (!c.dataplane())
        return "Dataplane: off (srv6d runs with [dataplane] enabled = false)\n";
    std::string out = fmt::format("Dataplane: {} worker{}\n", c.workers(), c.workers() == 1 ? "" : "s");
    out += fmt::format("{:<12} {:>4} {:>7} {:<10} {:>12} {:>14} {:>12} {:>14} {:>10} {:>10} {:>10}\n", "Port", "Id",
                       "Ifindex", "VRF", "RX packets", "RX bytes", "TX packets", "TX bytes", "TX drops", "Punted",
                       "Injected");
    for (const auto& p : c.ports())
        out += fmt::format("{:<12} {:>4} {:>7} {:<10} {:>12} {:>14} {:>12} {:>14} {:>10} {:>10} {:>10}\n", p.name(),
                           p.port_id(), p.ifindex(), p.vrf(), p.rx_packets(), p.rx_bytes(), p.tx_packets(),
                           p.tx_bytes(), p.tx_dropped(), p.punted(), p.injected());
    out += fmt::format("\n{:<12} {:<5} {:>12} {:>6} {:>6}  {}\n", "Port", "Link", "Speed", "MTU", "Queues", "VLAN");
    for (const auto& p : c.ports())
        out += fmt::format("{:<12} {:<5} {:>12} {:>6} {:>6}  {}\n", p.name(), p.link_up() ? "up" : "down",
                           p.speed_mbps() ? fmt::format("{} Mb/s", p.speed_mbps()) : std::string("-"), p.mtu(),
                           p.queues(), p.vlan() ? fmt::format("{} on {}", p.vlan(), p.parent()) : std::string("-"));
    // The devices' own drops, when any port has some (`--json` and the metrics always have them).
    bool dev_drops = false;
    for (const auto& p : c.ports())
        dev_drops |= (p.rx_missed() | p.rx_errors() | p.rx_nombuf() | p.tx_errors()) != 0;
    if (dev_drops) {
        out += fmt::format("\n{:<12} {:>12} {:>12} {:>12} {:>12}  (the devices' own counters)\n", "Port",
                           "RX missed", "RX errors", "RX no mbuf", "TX errors");
        for (const auto& p : c.ports())
            out += fmt::format("{:<12} {:>12} {:>12} {:>12} {:>12}\n", p.name(), p.rx_missed(), p.rx_errors(),
                               p.rx_nombuf(), p.tx_errors());
    }
    if (c.per_worker_size() > 1) {  // with one worker it is the ports' sum again
        out += fmt::format("\n{:<8} {:>6} {:>12} {:>12} {:>10}\n", "Worker", "Lcore", "RX packets", "TX packets",
                           "Drops");
        for (const auto& w : c.per_worker())
            out += fmt::format("{:<8} {:>6} {:>12} {:>12} {:>10}\n", w.worker(),
                               w.has_lcore() ? std::to_string(w.lcore()) : std::string("-"), w.rx_packets(),
                               w.tx_packets(), w.dropped());
    }
    if (c.sids_size()) {
        out += fmt::format("\n{:<44} {:<12} {:>12} {:>14}\n", "SID", "Behavior", "Packets", "Bytes");
        for (const auto& s : c.sids())
            out += fmt::format("{:<44} {:<12} {:>12} {:>14}\n", s.prefix(), s.behavior(), s.packets(), s.bytes());
    }
    if (c.sid_overflow_packets())
        out += fmt::format("({} packets to SIDs beyond the per-SID counters)\n", c.sid_overflow_packets());
    uint64_t encapsulated = 0;
    for (const auto& h : c.headend())
        encapsulated += h.packets();
    if (encapsulated) {
        out += fmt::format("\n{:<44} {:>12}\n", "Headend", "Packets");
        for (const auto& h : c.headend())
            if (h.packets())
                out += fmt::format("{:<44} {:>12}\n", h.behavior(), h.packets());
    }
    uint64_t dropped = 0;
    for (const auto& d : c.drops())
        dropped += d.packets();
    out += fmt::format("\nDrops: {}\n", dropped);
    for (const auto& d : c.drops())
        if (d.packets())
            out += fmt::format("  {:<20} {:>12}  {}\n", d.reason(), d.packets(), d.description());
    if (c.headend_chained())
        out += fmt::format("H.Encaps with a chained header mbuf: {}\n", c.headend_chained());
    if (c.ip4_fragmented())
        out += fmt::format("IPv4 fragmented at the headend: {} packets into {} fragments\n", c.ip4_fragmented(),
                           c.ip4_fragments());
    const auto& ic = c.icmp();
    uint64_t icmp_sent = 0;
    for (const auto& k : ic.sent())
        icmp_sent += k.packets();
    if (icmp_sent || ic.rate_limited() || ic.no_source()) {
        out += fmt::format("\nICMP sent: {}\n", icmp_sent);
        for (const auto& k : ic.sent())
            if (k.packets())
                out += fmt::format("  {:<28} {:>12}\n", k.message(), k.packets());
        if (ic.rate_limited())
            out += fmt::format("  {:<28} {:>12}  not sent: over the ICMP rate limit\n", "rate-limited", ic.rate_limited());
        if (ic.no_source())
            out += fmt::format("  {:<28} {:>12}  not sent: no own address in the VRF\n", "no-source", ic.no_source());
    }
    const auto& nr = c.neigh_resolution();
    if (nr.queued() || nr.queue_full())
        out += fmt::format("\nNeighbor resolution (for rewritten packets): {} requested, {} lost (queue full), {} "
                           "sent to the kernel, {} rate-limited, {} failed\n",
                           nr.queued(), nr.queue_full(), nr.sent(), nr.rate_limited(), nr.failed());
    if (nr.held() || nr.hold_dropped())
        out += fmt::format("Held for an unresolved neighbor: {} held, {} sent once resolved, {} dropped\n", nr.held(),
                           nr.released(), nr.hold_dropped());
    return out;
}

std::string format_neighbors(const pb::NeighborTable& t) {
    if (!t.dataplane())
        return "Dataplane: off (srv6d runs with [dataplane] enabled = false)\n";
    std::string out = fmt::format("{:<12} {:<40} {:<18} {}\n", "Port", "Address", "MAC", "Source");
    for (const auto& n : t.neighbors())
        out += fmt::format("{:<12} {:<40} {:<18} {}\n", n.port(), n.address(), n.mac(), n.source());
    if (t.neighbors_size() == 0)
        out += "(no neighbors)\n";
    if (t.addresses_size()) {
        out += "\nOwn addresses (to the host):\n";
        for (const auto& a : t.addresses())
            out += fmt::format("  {:<40} vrf {}\n", a.address(), a.vrf());
    }
    return out;
}

}  // namespace mgmt
