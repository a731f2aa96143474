#include "forward/datapath/drop_reason.hh"

#include <array>

namespace fwd {
namespace {
constexpr std::array<std::string_view, drop_reason_count> names = {
#define X(n, text) #n,
#include "forward/datapath/drop_reasons.def"
#undef X
};
constexpr std::array<std::string_view, drop_reason_count> texts = {
#define X(n, text) text,
#include "forward/datapath/drop_reasons.def"
#undef X
};
}  // namespace

std::string_view name(drop_reason r) { return names[static_cast<size_t>(r)]; }
std::string_view describe(drop_reason r) { return texts[static_cast<size_t>(r)]; }

}  // namespace fwd
