#include "forward/datapath/srv6_headend.hh"

#include "forward/datapath/mbuf_util.hh"

namespace fwd {

rte_mempool* headend_hdr_pool_create(const char* name, unsigned n, int socket, uint16_t priv_size) {
    return header_pool_create(name, n, max_tmpl_len, RTE_PKTMBUF_HEADROOM, socket, priv_size);
}

rte_mbuf* headend_chain(rte_mbuf* m, uint16_t strip, uint16_t len, headend_ctx& ctx, drop_reason& why) {
    rte_mbuf* h = ctx.hdr_pool != nullptr ? prepend_header_seg(ctx.hdr_pool, m, strip, len) : nullptr;
    if (h == nullptr) {
        why = drop_reason::encap_no_mbuf;
        return nullptr;
    }
    ++ctx.hdr_chained;
    return h;
}

}  // namespace fwd
