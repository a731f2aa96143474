// The worker's per-packet state and the byte helpers its stages share (one TU: worker.cc).
#pragma once

#include <rte_byteorder.h>

#include <cstdint>
#include <cstring>

#include "forward/datapath/vlan_tag.hh"
#include "forward/datapath/worker.hh"

namespace fwd {

constexpr uint16_t eth_len = 14;
constexpr uint16_t ether_ipv4 = 0x0800;
constexpr uint16_t ether_ipv6 = 0x86dd;
constexpr uint16_t ether_arp = 0x0806;

constexpr uint8_t f_no_ttl = 1;  // hop limit already checked and decremented (endpoint, encap)
constexpr uint8_t f_icmp = 2;    // an ICMP message the worker wrote: never the cause of another

inline uint16_t load_be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t load_be32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return rte_be_to_cpu_32(v);
}

// Read per burst where nothing is traced: no packet has a slot.
inline constexpr uint8_t trace_none[burst_size] = {};


// A packet exactly as it came in (first lookup, its own headers untouched): one the host can be
// handed instead of us.
inline bool pristine(const pkt& p) { return p.lookups == 1 && p.l3 == 14 && p.flags == 0; }

}  // namespace fwd
