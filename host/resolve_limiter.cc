#include "host/resolve_limiter.hh"

namespace host {

bool resolve_limiter::allow(uint32_t ifindex, const rib::ip_addr& addr, clock::time_point now) {
    auto [it, fresh] = _last.try_emplace(key{ifindex, addr.af, addr.bytes}, now);
    if (fresh)
        return true;
    if (now - it->second < _interval)
        return false;
    it->second = now;
    return true;
}

void resolve_limiter::expire(clock::time_point now) {
    std::erase_if(_last, [&](const auto& e) { return now - e.second >= _interval; });
}

}  // namespace host
