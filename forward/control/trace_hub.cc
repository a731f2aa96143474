#include "forward/control/trace_hub.hh"

#include <algorithm>

namespace fwd {

trace_hub::trace_hub(unsigned workers) : _lost_base(workers, 0) {
    for (unsigned w = 0; w < workers; ++w)
        _w.push_back(std::make_unique<trace_shared>());
}

void trace_hub::arm(trace_mode mode, uint16_t port, uint16_t budget) {
    disarm();
    if (++_gen == 0)  // 0 would read as "no request" combined with mode off; keep gens non-zero
        _gen = 1;
    _mode = mode;
    for (size_t w = 0; w < _w.size(); ++w)
        _lost_base[w] = _w[w]->lost.get();
    const uint64_t word = trace_arm{_gen, mode, port, budget}.pack();
    for (auto& s : _w)
        s->arm.store(word, std::memory_order_relaxed);
}

void trace_hub::disarm() {
    for (auto& s : _w)
        s->arm.store(0, std::memory_order_relaxed);
    _mode = trace_mode::off;
    discard();
}

// What is in the rings now belongs to the request that ends (a worker may still finish a
// record of it after this: take() after the next arm() sees it, with that request's records;
// the caller stops reading a request well before it arms the next one).
void trace_hub::discard() {
    for (auto& s : _w)
        s->tail.store(s->head.load(std::memory_order_acquire), std::memory_order_release);
}

size_t trace_hub::take(std::vector<trace_entry>& out, size_t max) {
    const size_t first = out.size();
    for (size_t w = 0; w < _w.size(); ++w) {
        trace_shared& s = *_w[w];
        const uint32_t head = s.head.load(std::memory_order_acquire);  // the records before it are written
        uint32_t tail = s.tail.load(std::memory_order_relaxed);
        for (; tail != head && out.size() - first < max; ++tail)
            out.push_back({static_cast<unsigned>(w), s.ring[tail % trace_ring_size]});
        s.tail.store(tail, std::memory_order_release);  // the worker may reuse those entries
    }
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                     [](const trace_entry& a, const trace_entry& b) { return a.rec.tsc < b.rec.tsc; });
    return out.size() - first;
}

uint64_t trace_hub::lost() const {
    uint64_t n = 0;
    for (size_t w = 0; w < _w.size(); ++w)
        n += _w[w]->lost.get() - _lost_base[w];
    return n;
}

}  // namespace fwd
