#include "forward/datapath/mbuf_util.hh"

#include <algorithm>
#include <cstring>

namespace fwd {

rte_mempool* header_pool_create(const char* name, unsigned n, uint16_t max_hdr, uint16_t reserve, int socket,
                                uint16_t priv_size) {
    const unsigned cache = n >= 1024 ? 64 : 0;
    const auto room = static_cast<uint16_t>(reserve + max_hdr);
    return rte_pktmbuf_pool_create(name, n, cache, priv_size, room, socket);
}

rte_mbuf* prepend_header_seg(rte_mempool* pool, rte_mbuf* m, uint16_t strip, uint16_t hdr_len) {
    if (strip > m->data_len || m->nb_segs == UINT16_MAX)
        return nullptr;
    rte_mbuf* h = rte_pktmbuf_alloc(pool);
    if (h == nullptr)
        return nullptr;
    if (h->buf_len < hdr_len) {
        rte_pktmbuf_free(h);
        return nullptr;
    }
    h->data_off = static_cast<uint16_t>(h->buf_len - hdr_len);
    h->data_len = hdr_len;
    h->pkt_len = hdr_len;
    h->port = m->port;
    h->hash = m->hash;
    h->ol_flags = m->ol_flags & RTE_MBUF_F_RX_RSS_HASH;
    // Per-packet metadata travels with the head: dynamic fields, and the private area as far as
    // both pools have one.
    std::memcpy(h->dynfield1, m->dynfield1, sizeof m->dynfield1);
    const uint16_t priv = std::min(h->priv_size, m->priv_size);
    if (priv != 0)
        std::memcpy(h + 1, m + 1, priv);
    rte_pktmbuf_adj(m, strip);
    // Cannot fail: nb_segs was checked above.
    (void)rte_pktmbuf_chain(h, m);
    return h;
}

}  // namespace fwd
