// ECMP groups as a small weighted array: a flow hash picks a slot, the slot names a member.
// Member i gets a share of the slots proportional to its weight (exactly, when the reduced
// weights sum to at most max_slots; otherwise by largest remainder, every member at least one).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace fib {

constexpr uint32_t ecmp_max_slots = 256;

struct ecmp_member {
    uint32_t nh = 0;      // the member's nexthop index
    uint32_t weight = 1;  // 0 is taken as 1
};

// Slot i holds the nexthop index of the member that owns it; members in order, each a block.
std::vector<uint32_t> ecmp_slots(std::span<const ecmp_member> members, uint32_t max_slots = ecmp_max_slots);

// Uniform over [0, n) for a 32-bit hash, without a division.
inline uint32_t ecmp_slot(uint32_t flow_hash, uint32_t n) {
    return static_cast<uint32_t>((uint64_t{flow_hash} * n) >> 32);
}

}  // namespace fib
