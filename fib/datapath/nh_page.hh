// One immutable page of the nexthop index space: 256 slots, each a compiled nexthop. The
// published view holds the pages; a worker reads slot (idx & 255) of page (idx >> 8).
#pragma once

#include <array>
#include <cstdint>

#include "fib/datapath/nexthop.hh"

namespace fib {

constexpr uint32_t nh_page_bits = 8;
constexpr uint32_t nh_page_slots = 1u << nh_page_bits;

class nh_page {
public:
    static const nh_page* create(const std::array<const compiled_nh*, nh_page_slots>& slots);
    static void destroy(const nh_page* p) noexcept;
    const compiled_nh* at(uint32_t i) const { return _slot[i & (nh_page_slots - 1)]; }
    bool intact() const { return _magic == nh_page_magic; }

private:
    static constexpr uint32_t nh_page_magic = 0x50414745;  // "PAGE"
    nh_page() = default;
    uint32_t _magic = 0;
    [[maybe_unused]] uint32_t _pad = 0;  // explicit padding (clang: -Wunused-private-field)
    const compiled_nh* _slot[nh_page_slots];
};

}  // namespace fib
