// The workers' lcores: launched, run, stopped.
#include <rte_launch.h>
#include <rte_lcore.h>

#include "forward/control/dataplane_impl.hh"
#include "forward/datapath/worker_loop.hh"

namespace fwd {

int dataplane::lcore_main(void* arg) {
    auto* ctx = static_cast<std::pair<dataplane*, unsigned>*>(arg);
    ctx->first->worker_loop(ctx->second);
    delete ctx;
    return 0;
}

void dataplane::worker_loop(unsigned w) {
    _workers[w]->lcore.store(rte_lcore_id(), std::memory_order_relaxed);
    run_worker(*_workers[w]->w, _rcu, w, _run, _idle_sleep_us);
}

unsigned dataplane::launch() {
    _run.store(true);
    unsigned w = 0, launched = 0;
    // RTE_LCORE_FOREACH_WORKER by hand: the macro trips -Wsign-conversion in C++.
    for (unsigned lc = rte_get_next_lcore(static_cast<unsigned>(-1), 1, 0); lc < RTE_MAX_LCORE;
         lc = rte_get_next_lcore(lc, 1, 0)) {
        if (w >= _workers.size())
            break;
        auto* ctx = new std::pair<dataplane*, unsigned>(this, w++);
        if (rte_eal_remote_launch(lcore_main, ctx, lc) != 0) {
            delete ctx;
            continue;
        }
        _lcores.push_back(lc);
        ++launched;
    }
    return launched;
}

void dataplane::run_here() { worker_loop(0); }

void dataplane::stop() {
    _run.store(false);
    for (unsigned lc : _lcores)
        rte_eal_wait_lcore(lc);
    _lcores.clear();
}

unsigned dataplane::lcore_of(unsigned w) const { return w < _lcores.size() ? _lcores[w] : rte_get_main_lcore(); }

}  // namespace fwd
