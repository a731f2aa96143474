#include "fpm/decode_ctx.hh"

namespace fpm {

void decode_ctx::report(reason r, std::string_view detail) {
    const auto i = static_cast<size_t>(r);
    ++stats.reasons[i];
    uint64_t held = 0;
    if (!_limits[i].allow(held))
        return;
    const auto lvl = is_error(r) ? util::level::warn : util::level::debug;
    util::log(lvl, "fpm: {} ({}){}{}{}", describe(r), name(r), detail.empty() ? "" : ": ", detail,
              held ? fmt::format(" [{} more since last report]", held) : std::string{});
}

}  // namespace fpm
