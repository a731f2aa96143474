// The keys of the kernel's routes in given tables (this network namespace), for the FPM
// listener's sweep: a stale route of a table zebra does not replay survives only while the kernel
// zebra programs has a route at its key (docs/srv6d.md, "Which tables a sweep cleans").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rib/model.hh"

namespace host {

// IPv4 and IPv6 routes of `tables`, keyed as the FPM decoder keys zebra's (table, destination
// prefix, source prefix when it has one). nullopt, with `error`, when the dump fails. One dump
// per table and family (filtered by the kernel when it supports strict dump checks).
std::optional<std::vector<rib::route_key>> kernel_route_keys(const std::vector<rib::table_id>& tables,
                                                             std::string& error);

}  // namespace host
