#include "vrf/tunsrc_poller.hh"

namespace vrf {

bool tunsrc_poller::poll() {
    _last = _reader.read();
    ++_reads;
    if (!_last.ok) {
        ++_failures;
        uint64_t held = 0;
        if (_error_log.allow(held))
            util::log(util::level::warn, "encap-source: cannot read the kernel tunsrc: {}{}", _last.error,
                      held ? fmt::format(" [{} more since last report]", held) : std::string{});
    }
    return _resolver.set_kernel_tunsrc(_last);
}

}  // namespace vrf
