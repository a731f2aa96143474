// Test packets in and out of DPDK mbufs (tests/support/pkt_builder.hh builds them).
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <algorithm>

#include "tests/support/bytes.hh"

namespace test_support {

// A single-segment mbuf from `pool` holding `data` after `headroom` bytes; nullptr when the pool
// is empty or the packet does not fit.
inline rte_mbuf* mbuf_from(rte_mempool* pool, const bytes& data, uint16_t headroom = RTE_PKTMBUF_HEADROOM) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    if (m == nullptr)
        return nullptr;
    m->data_off = headroom;
    char* p = rte_pktmbuf_append(m, static_cast<uint16_t>(data.size()));
    if (p == nullptr) {
        rte_pktmbuf_free(m);
        return nullptr;
    }
    std::copy(data.begin(), data.end(), reinterpret_cast<uint8_t*>(p));
    return m;
}

// The packet's bytes, every segment's, concatenated.
inline bytes mbuf_bytes(const rte_mbuf* m) {
    bytes out;
    for (const rte_mbuf* s = m; s != nullptr; s = s->next) {
        const auto* p = rte_pktmbuf_mtod(s, const uint8_t*);
        out.insert(out.end(), p, p + s->data_len);
    }
    return out;
}

}  // namespace test_support
