// An answer of the management socket: one Response, or one produced in parts over several turns
// of the control loop (a large table). The server sends each part as a frame of its own, marked
// `more` but the last, and asks for the next part only once the previous one is written: one
// client holds at most one part in srv6d's memory, and each part costs one bounded turn.
#pragma once

#include <functional>
#include <utility>

#include "mgmt/proto.hh"

namespace mgmt {

// Fills the next part into an empty Response; returns true when more parts follow it.
using continuation = std::function<bool(pb::Response&)>;

struct reply {
    reply(pb::Response r) : first(std::move(r)) {}  // NOLINT: implicit, a handler may return a Response
    reply(pb::Response r, continuation c) : first(std::move(r)), next(std::move(c)) {}

    pb::Response first;
    continuation next;  // empty: `first` is the whole answer
};

// Appends a later part to the answer so far: consecutive RouteTables of one table become one,
// an error replaces the result. A client (mgmt::client) joins the frames with it.
void join_part(pb::Response& answer, pb::Response&& part);

// Every part of `r` joined into one Response, in one go (tests, in-process callers).
pb::Response drain(reply r);

}  // namespace mgmt
