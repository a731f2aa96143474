// Per-worker dataplane counters. Each worker owns one block and is its only writer; the control
// thread sums the blocks for `srv6ctl show counters` (relaxed loads: a sum may be a burst old,
// never torn). Clearing never writes a worker's block: the control thread keeps a baseline and
// shows the difference, so workers need no synchronisation at all.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <utility>

#include "fib/datapath/nexthop.hh"
#include "forward/datapath/adjacency.hh"
#include "forward/datapath/drop_reason.hh"

namespace fwd {

// A counter with one writer. load+store relaxed compiles to a plain add on x86, and keeps a
// concurrent reader well-defined.
class counter {
public:
    void add(uint64_t n) noexcept { _v.store(_v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
    void set(uint64_t v) noexcept { _v.store(v, std::memory_order_relaxed); }
    uint64_t get() const noexcept { return _v.load(std::memory_order_relaxed); }
    // Publishes what this writer stored before (a reader that acquire()s the value sees it).
    void release(uint64_t v) noexcept { _v.store(v, std::memory_order_release); }
    uint64_t acquire() const noexcept { return _v.load(std::memory_order_acquire); }

private:
    std::atomic<uint64_t> _v{0};
};

struct port_counters {
    counter rx_packets, rx_bytes, tx_packets, tx_bytes, tx_dropped;
    counter punted;    // received on the port, sent to its TAP mirror (the host)
    counter injected;  // from the TAP mirror, sent out of the port
};

// One SID's counters in one worker. A slot belongs to one SID at a time (fib::nh_sid::counter,
// given by the compiler with a new generation for every new SID): the worker that meets a
// generation other than the slot's zeroes the slot first, then publishes the generation, so
// the counts under a generation are that SID's alone; the reader sums only the workers whose
// slot holds the SID's generation. The control thread never writes here.
struct sid_counters {
    counter gen, packets, bytes;
};

// SIDs with a counter slot (the compiler hands out slots below this); the others are counted
// in `sid_overflow`, and `show counters` says so.
inline constexpr uint32_t max_sid_counters = fib::max_sid_counters;

// The control thread's reading of one SID slot, summed over the workers with sid_merge().
struct sid_count {
    uint64_t gen = 0, packets = 0, bytes = 0;
};

// Adds one worker's slot to `to`. Only the newest generation any worker has counted under is
// kept: a worker still on an older one has not met the slot's current SID yet, and its counts
// are the previous SID's. (Control thread; reads only.)
inline void sid_merge(sid_count& to, const sid_counters& from) noexcept {
    const uint64_t gen = from.gen.acquire();  // then the counts: zeroed for `gen`, or later
    if (gen < to.gen)
        return;
    if (gen > to.gen)
        to = {gen, 0, 0};
    to.packets += from.packets.get();
    to.bytes += from.bytes.get();
}

// A SID's packets and bytes from its slot's reading: 0 until a worker counted its generation.
inline std::pair<uint64_t, uint64_t> sid_counts(const sid_count& c, uint32_t gen) noexcept {
    return c.gen == gen ? std::pair<uint64_t, uint64_t>{c.packets, c.bytes} : std::pair<uint64_t, uint64_t>{0, 0};
}

// ICMP messages the workers send themselves (worker_icmp.hh, docs/dataplane.md "ICMP errors").
enum class icmp_kind : uint8_t {
    ip4_frag_needed,     // destination unreachable, fragmentation needed (RFC 792, RFC 1191)
    ip4_time_exceeded,   // TTL exceeded in transit (RFC 792)
    ip6_packet_too_big,  // RFC 4443 §3.2
    ip6_time_exceeded,   // hop limit exceeded in transit (RFC 4443 §3.3)
    ip6_param_problem,   // SRH errors (RFC 8754 §4.3.1.1, RFC 8986 §4.1)
    ip4_echo_reply,      // to a ping of an own address that arrived through the VPN
    ip6_echo_reply,
};
inline constexpr size_t icmp_kinds = 7;
// Names in `srv6ctl show counters` (text and JSON), by icmp_kind.
inline constexpr const char* icmp_kind_names[icmp_kinds] = {
    "ipv4 fragmentation-needed", "ipv4 time-exceeded",  "ipv6 packet-too-big", "ipv6 time-exceeded",
    "ipv6 parameter-problem",    "ipv4 echo-reply",     "ipv6 echo-reply",
};

struct icmp_counters {
    std::array<counter, icmp_kinds> sent;
    counter rate_limited;  // not sent: over the worker's ICMP rate (RFC 4443 §2.4(f))
    counter no_source;     // not sent: the router has no address in the VRF to send it from
};

// rib::encap_mode values 0..5 (SEG6_IPTUNNEL_MODE_* and srv6d's H.Insert.Red).
inline constexpr size_t headend_modes = 6;
// The headend counters' slots: a power of two, so the worker indexes them by `mode & 7` with
// no range test per packet; the compiler builds templates of the first headend_modes only.
inline constexpr size_t headend_slots = 8;

struct alignas(64) worker_counters {
    std::array<port_counters, max_ports> ports;
    std::array<counter, drop_reason_count> drops;
    std::array<sid_counters, max_sid_counters> sids;
    sid_counters sid_overflow;
    counter polls, bursts;
    counter hdr_chained;  // headend packets that needed a header mbuf (copied from headend_ctx)
    // Packets encapsulated, by rib::encap_mode (H.Insert, H.Encaps, .L2, .Red, .L2.Red): what
    // the headend did, next to the SIDs' counters for what the endpoints did.
    std::array<counter, headend_slots> headend;
    // Neighbor resolution requests for rewritten packets (resolve_queue.hh): handed to the
    // control thread, and refused because its ring was full.
    counter resolve_queued, resolve_lost;
    // Packets held while their neighbor was resolved (worker_hold.hh), and those that left once
    // it was; the rest were dropped (drop reasons neigh_hold_full, neigh_hold_timeout).
    counter held, released;
    icmp_counters icmp;
    // IPv4 packets the headend fragmented, and the fragments it made of them (worker_frag.hh).
    counter ip4_fragmented, ip4_fragments;

    void drop(drop_reason r) noexcept { drops[static_cast<size_t>(r)].add(1); }
    void sid(uint32_t slot, uint32_t gen, uint32_t bytes) noexcept {
        sid_counters& c = slot < max_sid_counters ? sids[slot] : sid_overflow;
        if (c.gen.get() != gen) {  // the first packet of a new SID in this slot, on this worker
            c.packets.set(0);
            c.bytes.set(0);
            c.gen.release(gen);
        }
        c.packets.add(1);
        c.bytes.add(bytes);
    }
};

}  // namespace fwd
