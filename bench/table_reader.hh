// A reader thread for the control-plane benches: what a worker does to the compiled tables
// while they are republished (bulk IPv4 lookups of 32 random 10/8 addresses in a random one of
// `vrfs`, each result's nexthop read, a quiescent state after every burst), without pause until
// stop(). Its lookups keep the QSBR grace periods real: reclamation waits for it.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "fib/datapath/dataplane_view.hh"
#include "fib/datapath/rcu.hh"

namespace bench {

class table_reader {
public:
    // `cell`: the compiler's publication cell; `vrfs`: the VRF ids to look up in (not empty).
    template <class Cell>
    table_reader(fib::qsbr_domain& rcu, const Cell& cell, std::vector<vrf::vrf_id> vrfs)
        : _vrfs(std::move(vrfs)), _t([this, &rcu, &cell] { run(rcu, [&cell] { return cell.load(); }); }) {}
    table_reader(const table_reader&) = delete;
    table_reader& operator=(const table_reader&) = delete;
    ~table_reader() { stop(); }

    // Stops and joins the thread; returns the lookups it did.
    uint64_t stop() {
        _stop.store(true, std::memory_order_relaxed);
        if (_t.joinable())
            _t.join();
        return _lookups;
    }

private:
    template <class Load>
    void run(fib::qsbr_domain& rcu, Load load) {
        pthread_setname_np(pthread_self(), "reader");
        fib::qsbr_reader q(rcu, 0);
        std::mt19937_64 rr(7);
        uint32_t a[32], nh[32];
        uint64_t n = 0, sink = 0;
        while (!_stop.load(std::memory_order_relaxed)) {
            if (const fib::dataplane_view* v = load()) {
                const vrf::vrf_id vrf = _vrfs[rr() % _vrfs.size()];
                for (auto& x : a)
                    x = (10u << 24) | static_cast<uint32_t>(rr() & 0xffffff);
                v->lookup4_bulk(vrf, a, nh, 32);
                for (uint32_t i : nh)
                    sink += static_cast<uint64_t>(v->nexthop(i).kind());
                n += 32;
            }
            q.quiescent();
        }
        _lookups = n + (sink & 1);  // the sink keeps the reads
    }

    std::vector<vrf::vrf_id> _vrfs;
    std::atomic<bool> _stop{false};
    uint64_t _lookups = 0;
    std::thread _t;  // last: started once the members above exist
};

}  // namespace bench
