#include "fib/datapath/rcu.hh"

#include <rte_rcu_qsbr.h>

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

namespace fib {

qsbr_domain::qsbr_domain(uint32_t max_readers) : _max(max_readers) {
    const size_t sz = rte_rcu_qsbr_get_memsize(max_readers);
    // rte_rcu_qsbr wants cache-line alignment; the size is a multiple of it already.
    _v = static_cast<rte_rcu_qsbr*>(std::aligned_alloc(RTE_CACHE_LINE_SIZE, sz));
    if (!_v)
        throw std::bad_alloc();
    if (rte_rcu_qsbr_init(_v, max_readers) != 0) {
        std::free(_v);
        throw std::runtime_error("rte_rcu_qsbr_init failed for " + std::to_string(max_readers) + " readers");
    }
}

qsbr_domain::~qsbr_domain() {
    synchronize();
    std::free(_v);
}

void qsbr_domain::retire(retire_batch&& b) {
    if (b.empty())
        return;
    // The token increment is a release: a reader that reports a quiescent state at or after it
    // has also seen the store that unlinked the batch's objects.
    const uint64_t token = rte_rcu_qsbr_start(_v);
    _pending_objects += b.size();
    _pending.emplace_back(token, std::move(b));
}

size_t qsbr_domain::reclaim() {
    size_t n = 0;
    while (!_pending.empty() && rte_rcu_qsbr_check(_v, _pending.front().first, false) == 1) {
        auto& b = _pending.front().second;
        n += b.size();
        b.run();
        _pending.pop_front();
    }
    _pending_objects -= n;
    _freed += n;
    return n;
}

void qsbr_domain::synchronize() {
    if (!_pending.empty()) {
        // Waits for the newest token; every older batch is covered by it.
        rte_rcu_qsbr_check(_v, _pending.back().first, true);
    }
    reclaim();
}

qsbr_reader::qsbr_reader(qsbr_domain& d, uint32_t id) : _v(d.raw()), _id(id) {
    if (id >= d.max_readers() || rte_rcu_qsbr_thread_register(_v, id) != 0)
        throw std::invalid_argument("qsbr reader id " + std::to_string(id) + " is out of range");
    rte_rcu_qsbr_thread_online(_v, _id);
}

qsbr_reader::~qsbr_reader() {
    rte_rcu_qsbr_thread_offline(_v, _id);
    rte_rcu_qsbr_thread_unregister(_v, _id);
}

void qsbr_reader::quiescent() { rte_rcu_qsbr_quiescent(_v, _id); }
void qsbr_reader::offline() { rte_rcu_qsbr_thread_offline(_v, _id); }
void qsbr_reader::online() { rte_rcu_qsbr_thread_online(_v, _id); }

}  // namespace fib
