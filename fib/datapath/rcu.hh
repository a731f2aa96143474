// Publication by pointer swap, reclamation after a QSBR grace period (DPDK rte_rcu_qsbr).
//
// Workers (readers) register once, load the published pointer at the start of a burst, use it and
// everything reachable from it for that burst, and report a quiescent state between bursts; a
// worker about to block goes offline first. The control thread (the only writer) stores a new
// snapshot, then hands the objects the snapshot no longer reaches to retire(): they are freed by
// reclaim(), which the control loop polls, once every registered online reader has reported a
// quiescent state after the store. The control thread never waits for readers except in
// synchronize() (shutdown, tests).
//
// The defer list is a std::deque of (rte_rcu_qsbr_start() token, batch) pairs checked with
// rte_rcu_qsbr_check(wait = false): the same mechanism as DPDK's rte_rcu_qsbr_dq, but unbounded
// (a batch can hold a million objects after an encap-source flip), with no EAL dependency and no
// experimental API.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

#include "fib/datapath/retire.hh"

struct rte_rcu_qsbr;

namespace fib {

class qsbr_domain {
public:
    explicit qsbr_domain(uint32_t max_readers);
    ~qsbr_domain();  // waits for the readers still online, then frees everything pending
    qsbr_domain(const qsbr_domain&) = delete;
    qsbr_domain& operator=(const qsbr_domain&) = delete;

    rte_rcu_qsbr* raw() const { return _v; }
    uint32_t max_readers() const { return _max; }

    // --- control thread
    // Starts a grace period for `b` (call after the store that unlinked its objects).
    void retire(retire_batch&& b);
    // Frees every batch whose grace period is over; never blocks. Returns objects freed.
    size_t reclaim();
    // Blocks until every online reader passed a quiescent state, then frees everything.
    void synchronize();
    size_t pending_batches() const { return _pending.size(); }
    size_t pending_objects() const { return _pending_objects; }
    uint64_t freed_objects() const { return _freed; }

private:
    rte_rcu_qsbr* _v = nullptr;
    uint32_t _max = 0;
    std::deque<std::pair<uint64_t, retire_batch>> _pending;
    size_t _pending_objects = 0;
    uint64_t _freed = 0;
};

// A worker's registration (RAII): registered and online from construction to destruction.
// One per thread; `id` < max_readers and unique among live readers.
class qsbr_reader {
public:
    qsbr_reader(qsbr_domain& d, uint32_t id);
    ~qsbr_reader();
    qsbr_reader(const qsbr_reader&) = delete;
    qsbr_reader& operator=(const qsbr_reader&) = delete;

    // Between bursts: nothing loaded before this call is used after it.
    void quiescent();
    // Around blocking calls: an offline reader does not hold up grace periods.
    void offline();
    void online();

private:
    rte_rcu_qsbr* _v;
    uint32_t _id;
};

// The publication point: one atomic pointer. Readers load it (acquire) once per burst.
template <class T>
class rcu_cell {
public:
    const T* load() const noexcept { return _p.load(std::memory_order_acquire); }
    // Control thread: stores `next` and returns the previous value, for the caller to retire.
    const T* exchange(const T* next) noexcept { return _p.exchange(next, std::memory_order_acq_rel); }

private:
    std::atomic<const T*> _p{nullptr};
};

}  // namespace fib
