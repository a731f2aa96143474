// The compile pacer wired to the control thread's event loop: the one place that decides to
// compile now or arms the timer for later (srv6d's control plane and the end-to-end bench both
// use it, so the bench measures exactly srv6d's batching). Control thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstddef>
#include <functional>
#include <utility>

#include "apps/srv6d/compile_pacer.hh"

namespace srv6d {

class compile_timer {
public:
    // `compile(batch)` compiles and publishes; `batch` is the number of RIB updates waiting.
    // It returns true to be called again a pacer interval later with nothing new (the
    // compiler's settling: tables published two-level under churn are flattened once quiet).
    using compile_fn = std::function<bool(size_t batch)>;

    compile_timer(boost::asio::io_context& io, compile_fn compile, compile_pacer::clock::duration min_interval,
                  size_t max_pending)
        : _pacer(min_interval, max_pending), _timer(io), _compile(std::move(compile)) {}

    // `updates` RIB updates (0: a VRF or encap source change) are waiting: compile now or later.
    void changed(size_t updates) {
        add(updates);
        poll();
    }
    // Counted only: a later changed() or poll() decides (srv6d binds new SIDs first).
    void add(size_t updates) { _pacer.changed(updates); }

    // Compile now when the pacer says so, else make sure the timer will ask it again.
    void poll() {
        if (_stopped)
            return;
        const auto d = _pacer.poll(compile_pacer::clock::now());
        if (d.now) {
            const bool again = _compile(_pacer.pending());
            _pacer.compiled(compile_pacer::clock::now());  // an armed timer finds nothing wanted
            if (again)
                changed(0);  // inside the interval just begun: arms the timer
        } else if (d.wait && !_armed) {
            _armed = true;
            _timer.expires_at(d.at);
            _timer.async_wait([this](const boost::system::error_code& ec) {
                _armed = false;
                // cancel() does not reach a completion already queued: the flag does.
                if (ec || _stopped)
                    return;
                poll();
            });
        }
    }

    // Nothing is compiled or armed after this (shutdown).
    void stop() {
        _stopped = true;
        _timer.cancel();
    }

    bool wanted() const { return _pacer.wanted(); }
    size_t pending() const { return _pacer.pending(); }

private:
    compile_pacer _pacer;
    boost::asio::steady_timer _timer;
    compile_fn _compile;
    bool _armed = false;
    bool _stopped = false;
};

}  // namespace srv6d
