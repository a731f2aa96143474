// Applies decoded updates to the RIB. The decoders stay pure (bytes in, updates out); this is
// the only place where an update becomes a RIB mutation.
#pragma once

#include <span>

#include "rib/rib.hh"
#include "fpm/update.hh"

namespace fpm {

// One update. Returns whether the RIB changed.
bool apply(const update& u, rib::store& rib);

// The updates of one frame, in order. Contract: the caller applies a frame's updates as one
// batch and reads the RIB (compiles, renders) only after the whole batch, so an 8.4.4 update
// pair (RTM_DELROUTE + RTM_NEWROUTE of one key in one frame) is never seen half done.
// A route delete directly followed by an upsert of the same key is applied as that upsert
// alone (a replace): no gap, no spurious change when the content is the same.
// Returns whether the RIB changed. (Not an `apply` overload: with a std::vector argument, ADL
// would pick std::apply.)
bool apply_batch(std::span<const update> batch, rib::store& rib);

// The same, but the routes, nexthop objects and SID lists are moved into the RIB instead of
// copied (inline paths and segment lists are heap objects). Afterwards the batch's keys, ids and
// names are intact; its paths, segments and other contents are moved-from.
bool apply_batch_consume(std::span<update> batch, rib::store& rib);

}  // namespace fpm
