#include "fpm/apply.hh"

#include <type_traits>
#include <utility>
#include <variant>

namespace fpm {

namespace {

// Body is `const update_body` (copies into the RIB) or `update_body` (moves into it).
template <typename Body>
bool apply_body(Body& body, rib::store& rib) {
    // The dialect does not matter here: keys and ids are stored as sent; mapping SONiC's
    // "table = VRF ifindex" to a VRF is the consumer's job (vrf/).
    constexpr bool consume = !std::is_const_v<Body>;
    auto take = [](auto& v) -> decltype(auto) {
        if constexpr (consume)
            return std::move(v);
        else
            return static_cast<const std::remove_reference_t<decltype(v)>&>(v);
    };
    return std::visit(
        [&rib, &take](auto& b) -> bool {
            using T = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<T, route_upsert>)
                return rib.upsert_route(take(b.route));
            else if constexpr (std::is_same_v<T, route_delete>)
                return rib.delete_route(b.key);
            else if constexpr (std::is_same_v<T, nexthop_upsert>)
                return rib.upsert_nexthop(take(b.nh));
            else if constexpr (std::is_same_v<T, nexthop_delete>)
                return rib.delete_nexthop(b.id);
            else if constexpr (std::is_same_v<T, pic_context_upsert>)
                return rib.upsert_pic_context(take(b.nh));
            else if constexpr (std::is_same_v<T, pic_context_delete>)
                return rib.delete_pic_context(b.id);
            else if constexpr (std::is_same_v<T, sidlist_upsert>)
                return rib.upsert_sidlist(b.name, take(b.segments));  // the name stays readable
            else {
                static_assert(std::is_same_v<T, sidlist_delete>, "update_body alternative not handled");
                return rib.delete_sidlist(b.name);
            }
        },
        body);
}

// A route delete directly followed by an upsert of the same key: the upsert alone does it.
template <typename Update>
bool replaced_by_next(std::span<Update> batch, size_t i) {
    const auto* del = std::get_if<route_delete>(&batch[i].body);
    if (!del || i + 1 >= batch.size())
        return false;
    const auto* next = std::get_if<route_upsert>(&batch[i + 1].body);
    return next && next->route.key == del->key;
}

// The route key an update probes the RIB with; null for the other objects.
template <typename Update>
const rib::route_key* route_key_of(const Update& u) {
    if (const auto* up = std::get_if<route_upsert>(&u.body))
        return &up->route.key;
    if (const auto* del = std::get_if<route_delete>(&u.body))
        return &del->key;
    return nullptr;
}

// Hints the RIB about the routes a few updates ahead (rib::prefetch_route): the two dependent
// cache misses of each probe then overlap with the updates before it instead of stalling it.
template <typename Update>
void prefetch_ahead(std::span<Update> batch, size_t i, const rib::store& rib) {
    constexpr size_t bucket_ahead = 8, route_ahead = 4;
    if (i + bucket_ahead < batch.size())
        if (const rib::route_key* k = route_key_of(batch[i + bucket_ahead]))
            rib.prefetch_route(*k, 0);
    if (i + route_ahead < batch.size())
        if (const rib::route_key* k = route_key_of(batch[i + route_ahead]))
            rib.prefetch_route(*k, 1);
}

}  // namespace

bool apply(const update& u, rib::store& rib) { return apply_body(u.body, rib); }

bool apply_batch(std::span<const update> batch, rib::store& rib) {
    bool changed = false;
    for (size_t i = 0; i < batch.size(); ++i) {
        prefetch_ahead(batch, i, rib);
        if (!replaced_by_next(batch, i))  // DEL+NEW pair = replace; the upsert that follows does it
            changed = apply_body(batch[i].body, rib) || changed;
    }
    return changed;
}

bool apply_batch_consume(std::span<update> batch, rib::store& rib) {
    bool changed = false;
    for (size_t i = 0; i < batch.size(); ++i) {
        prefetch_ahead(batch, i, rib);
        if (!replaced_by_next(batch, i))
            changed = apply_body(batch[i].body, rib) || changed;
    }
    return changed;
}

}  // namespace fpm
