// The control thread's side of trace and capture (forward/datapath/trace.hh): one shared block
// per worker, a request armed on all of them at once, their records drained in time order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "forward/datapath/trace.hh"

namespace fwd {

struct trace_entry {
    unsigned worker = 0;
    trace_record rec;
};

class trace_hub {
public:
    explicit trace_hub(unsigned workers);

    trace_shared* worker(unsigned w) { return w < _w.size() ? _w[w].get() : nullptr; }
    unsigned workers() const { return static_cast<unsigned>(_w.size()); }

    // A new request on every worker: each makes at most `budget` records (the caller keeps
    // the first it asked for). Records of an earlier request still in the rings are discarded.
    void arm(trace_mode mode, uint16_t port, uint16_t budget);
    void disarm();
    trace_mode mode() const { return _mode; }

    // Appends up to `max` records, oldest first (by the TSC they were received or sent at).
    size_t take(std::vector<trace_entry>& out, size_t max);
    // Records the workers lost since arm(): ring full, more packets in flight than slots.
    uint64_t lost() const;

private:
    void discard();

    std::vector<std::unique_ptr<trace_shared>> _w;
    std::vector<uint64_t> _lost_base;
    uint16_t _gen = 0;
    trace_mode _mode = trace_mode::off;
};

}  // namespace fwd
