#include "apps/srv6d/refusal_log.hh"

#include <fmt/format.h>

namespace srv6d {
namespace {

const char* plural(size_t n) { return n == 1 ? "" : "s"; }

}  // namespace

std::vector<refusal_log::line> refusal_log::update(const fib::compiler_stats& s,
                                                   const std::map<rib::table_id, size_t>& unbound) {
    using util::level;
    std::vector<line> out;
    for (size_t i = 1; i < fib::nh_refusal_count; ++i) {
        const size_t was = _refused[i], now = s.refused[i];
        const auto why = fib::name(static_cast<fib::nh_refusal>(i));
        if (now > was)
            out.emplace_back(level::warn, fmt::format("fib: {} nexthop{} refused ({}), {} in all: their routes' packets are "
                                                      "dropped (srv6ctl show nexthops says why)",
                                                      now - was, plural(now - was), why, now));
        else if (now == 0 && was > 0)
            out.emplace_back(level::info, fmt::format("fib: no nexthop refused ({}) any more", why));
        _refused[i] = now;
    }
    // Routes of an unbound table are told per table (below); these have no path to take.
    for (const auto st : {fib::route_state::unresolved, fib::route_state::src_specific}) {
        const auto i = static_cast<size_t>(st);
        const size_t was = _routes[i], now = s.routes[i];
        const char* what = st == fib::route_state::unresolved ? "without a usable nexthop" : "source-specific (no LPM for them)";
        if (now > was)
            out.emplace_back(level::warn, fmt::format("fib: {} route{} {}, {} in all: not forwarded", now - was,
                                                      plural(now - was), what, now));
        else if (now == 0 && was > 0)
            out.emplace_back(level::info, fmt::format("fib: no route {} any more", what));
        _routes[i] = now;
    }
    // A table is told when it becomes unbound with routes, not at each route of its replay.
    for (const auto& [t, n] : unbound)
        if (!_unbound.count(t))
            out.emplace_back(level::warn, fmt::format("fib: table {} is bound to no active VRF: its route{} ({} now) "
                                                      "are not forwarded (a vrf line or a kernel VRF device binds it)",
                                                      t, plural(n), n));
    for (const auto& [t, n] : _unbound)
        if (!unbound.count(t))
            out.emplace_back(level::info, fmt::format("fib: table {}: no unbound route any more", t));
    _unbound = unbound;
    return out;
}

}  // namespace srv6d
