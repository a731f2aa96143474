#include "forward/datapath/resolve_queue.hh"

namespace fwd {

rte_ring* resolve_ring_create(const char* name, unsigned count, int socket) {
    return rte_ring_create_elem(name, sizeof(resolve_request), count, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
}

unsigned resolve_ring_take(rte_ring* r, resolve_request* out, unsigned max) {
    return rte_ring_sc_dequeue_burst_elem(r, out, sizeof(resolve_request), max, nullptr);
}

}  // namespace fwd
