#include "fib/datapath/ecmp.hh"

#include <algorithm>
#include <numeric>

namespace fib {

std::vector<uint32_t> ecmp_slots(std::span<const ecmp_member> members, uint32_t max_slots) {
    std::vector<uint32_t> out;
    if (members.empty())
        return out;
    std::vector<uint64_t> w;
    uint64_t g = 0;
    for (const auto& m : members) {
        w.push_back(std::max<uint32_t>(m.weight, 1));
        g = std::gcd(g, w.back());
    }
    uint64_t sum = 0;
    for (auto& x : w) {
        x /= g;
        sum += x;
    }
    max_slots = std::max<uint32_t>(max_slots, static_cast<uint32_t>(members.size()));
    std::vector<uint64_t> share(w.size());
    if (sum <= max_slots) {
        share = w;  // exact
    } else {
        // share_i = w_i * max / sum, rounded down (at least 1); the slots left go to the largest
        // remainders, so that the error per member stays below one slot.
        uint64_t used = 0;
        std::vector<std::pair<uint64_t, size_t>> rem;
        for (size_t i = 0; i < w.size(); ++i) {
            const uint64_t exact = w[i] * max_slots;
            share[i] = std::max<uint64_t>(exact / sum, 1);
            used += share[i];
            rem.emplace_back(exact >= share[i] * sum ? exact - share[i] * sum : 0, i);
        }
        std::stable_sort(rem.begin(), rem.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (size_t k = 0; used < max_slots && k < rem.size(); ++k, ++used)
            ++share[rem[k].second];
    }
    for (size_t i = 0; i < members.size(); ++i)
        out.insert(out.end(), share[i], members[i].nh);
    return out;
}

}  // namespace fib
