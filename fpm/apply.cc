#include "fpm/apply.hh"

#include <type_traits>
#include <variant>

namespace fpm {

bool apply(const update& u, fib::rib& rib) {
    // The dialect does not matter here: keys and ids are stored as sent; mapping SONiC's
    // "table = VRF ifindex" to a VRF is the consumer's job (vrf/).
    return std::visit(
        [&rib](const auto& b) -> bool {
            using T = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<T, route_upsert>)
                return rib.upsert_route(b.route);
            else if constexpr (std::is_same_v<T, route_delete>)
                return rib.delete_route(b.key);
            else if constexpr (std::is_same_v<T, nexthop_upsert>)
                return rib.upsert_nexthop(b.nh);
            else if constexpr (std::is_same_v<T, nexthop_delete>)
                return rib.delete_nexthop(b.id);
            else if constexpr (std::is_same_v<T, pic_context_upsert>)
                return rib.upsert_pic_context(b.nh);
            else if constexpr (std::is_same_v<T, pic_context_delete>)
                return rib.delete_pic_context(b.id);
            else if constexpr (std::is_same_v<T, sidlist_upsert>)
                return rib.upsert_sidlist(b.name, b.segments);
            else {
                static_assert(std::is_same_v<T, sidlist_delete>, "update_body alternative not handled");
                return rib.delete_sidlist(b.name);
            }
        },
        u.body);
}

bool apply_batch(std::span<const update> batch, fib::rib& rib) {
    bool changed = false;
    for (size_t i = 0; i < batch.size(); ++i) {
        if (const auto* del = std::get_if<route_delete>(&batch[i].body); del && i + 1 < batch.size()) {
            const auto* next = std::get_if<route_upsert>(&batch[i + 1].body);
            if (next && next->route.key == del->key)
                continue;  // DEL+NEW pair = replace; the upsert that follows does it
        }
        changed = apply(batch[i], rib) || changed;
    }
    return changed;
}

}  // namespace fpm
