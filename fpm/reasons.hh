// Counted reasons of the FPM ingest path, with their operator-facing text.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fpm {

enum class reason : uint16_t {
#define X(name, text) name,
#include "fpm/reasons.def"
#undef X
};

inline constexpr size_t reason_count = 0
#define X(name, text) +1
#include "fpm/reasons.def"
#undef X
    ;

std::string_view name(reason r);
std::string_view describe(reason r);
// Errors are logged (rate-limited) and shown as errors; the rest is routine skipping.
bool is_error(reason r);

using reason_counters = std::array<uint64_t, reason_count>;

}  // namespace fpm
