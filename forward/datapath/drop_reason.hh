// Why the dataplane dropped a packet; one per-lcore counter per reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fwd {

enum class drop_reason : uint8_t {
#define X(name, text) name,
#include "forward/datapath/drop_reasons.def"
#undef X
};

inline constexpr size_t drop_reason_count = 0
#define X(name, text) +1
#include "forward/datapath/drop_reasons.def"
#undef X
    ;

std::string_view name(drop_reason r);
std::string_view describe(drop_reason r);

}  // namespace fwd
