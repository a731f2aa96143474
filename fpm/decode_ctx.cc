#include "fpm/decode_ctx.hh"

namespace fpm {

void decode_ctx::report(reason r, std::string_view detail) {
    const auto i = static_cast<size_t>(r);
    ++stats.reasons[i];
    if (is_error(r)) {
        ++errors;
        last_error.assign(detail);
    }
    const auto lvl = is_error(r) ? util::level::warn : util::level::debug;
    util::log_limited(_limits[i], lvl, "fpm: {} ({}){}{}", describe(r), name(r), detail.empty() ? "" : ": ", detail);
}

}  // namespace fpm
