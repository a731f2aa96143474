// When srv6d's control thread runs the table compiler (fib::compiler::compile) after RIB
// changes. The compiler's cost per update falls with the batch size (each touched LPM chunk and
// index is rebuilt once per publication), while FPM delivers routes one socket read (<= 64 KiB,
// a few hundred routes) at a time. So:
//   - when the tables are idle (no compile in the last `min_interval`), compile at once: an
//     isolated update reaches the tables without added delay;
//   - while updates keep coming, compile at most once per `min_interval` (a timer at
//     last compile + min_interval), or at once when `max_pending` updates are waiting.
// Latency bound: a change applied to the RIB is published at most `min_interval` (plus one
// compile) later. Control thread only; the caller owns the timer.
#pragma once

#include <chrono>
#include <cstddef>

namespace srv6d {

class compile_pacer {
public:
    using clock = std::chrono::steady_clock;

    compile_pacer(clock::duration min_interval, size_t max_pending)
        : _interval(min_interval), _max_pending(max_pending) {}

    // Something the tables depend on changed: `updates` RIB updates (0 for a VRF or encap
    // source change).
    void changed(size_t updates) {
        _wanted = true;
        _pending += updates;
    }

    struct decision {
        bool now = false;     // compile now
        bool wait = false;    // else, if set: compile at `at` (arm the timer)
        clock::time_point at{};
    };
    decision poll(clock::time_point now) const {
        if (!_wanted)
            return {};
        if (_pending >= _max_pending || !_compiled_once || now - _last >= _interval)
            return {true, false, now};
        return {false, true, _last + _interval};
    }

    void compiled(clock::time_point now) {
        _last = now;
        _compiled_once = true;
        _wanted = false;
        _pending = 0;
    }

    bool wanted() const { return _wanted; }
    size_t pending() const { return _pending; }
    clock::duration min_interval() const { return _interval; }
    size_t max_pending() const { return _max_pending; }

private:
    clock::duration _interval;
    size_t _max_pending;
    clock::time_point _last{};
    bool _compiled_once = false;
    bool _wanted = false;
    size_t _pending = 0;
};

}  // namespace srv6d
