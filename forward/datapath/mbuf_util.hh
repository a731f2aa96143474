// Header segments: a small mbuf chained in front of a packet whose own headroom cannot take a
// header. Only fallback paths use it (the headend's long segment lists); the common path
// prepends into the packet's headroom.
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>

namespace fwd {

// A pool of header mbufs whose data room holds `max_hdr` bytes plus `reserve` bytes of headroom
// in front (e.g. for Ethernet). `priv_size`: as the packet pools', if packets carry metadata in
// their private area. nullptr with rte_errno set on failure.
rte_mempool* header_pool_create(const char* name, unsigned n, uint16_t max_hdr, uint16_t reserve, int socket,
                                uint16_t priv_size = 0);

// Strips `strip` bytes from the front of `m`, then chains a new mbuf from `pool` in front of it
// with `hdr_len` bytes of (unwritten) data placed at the end of its buffer, so all the rest is
// headroom. The head inherits m's port, RSS hash, dynamic fields and private area (up to the
// smaller of the two pools' private sizes). Returns the new head, or nullptr when the
// pool is empty, the header does not fit, `strip` exceeds m's first segment or the chain would be
// too long; then `m` is left as it was.
rte_mbuf* prepend_header_seg(rte_mempool* pool, rte_mbuf* m, uint16_t strip, uint16_t hdr_len);

}  // namespace fwd
