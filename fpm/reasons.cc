#include "fpm/reasons.hh"

namespace fpm {
namespace {
constexpr std::array<std::string_view, reason_count> names = {
#define X(n, text) #n,
#include "fpm/reasons.def"
#undef X
};
constexpr std::array<std::string_view, reason_count> texts = {
#define X(n, text) text,
#include "fpm/reasons.def"
#undef X
};
}  // namespace

std::string_view name(reason r) { return names[static_cast<size_t>(r)]; }
std::string_view describe(reason r) { return texts[static_cast<size_t>(r)]; }
bool is_error(reason r) { return name(r).substr(0, 8) != "ignored_"; }

}  // namespace fpm
