#include "vrf/tunsrc_poller.hh"

namespace vrf {

bool tunsrc_poller::poll() {
    _last = _reader.read();
    ++_reads;
    if (!_last.ok) {
        ++_failures;
        util::log_limited(_error_log, util::level::warn, "encap-source: cannot read the kernel tunsrc: {}", _last.error);
    }
    return _resolver.set_kernel_tunsrc(_last);
}

}  // namespace vrf
