// srv6ctl --json: the result message of a response as JSON, schema version `json_schema_version`
// (docs/srv6ctl.md "JSON"). Field names are protobuf's JSON names (lowerCamel); every number is
// a JSON number, 64-bit counters included; scalars are printed even when zero, repeated fields
// even when empty; fields marked `optional` and unset sub-messages are absent. Every document
// carries "schema_version" at its top level. `show routes` is an object keyed by table id whose
// values are route arrays, {"schema_version": 2, "254": [{"prefix": ...}, ...]}, close to
// zebra's `show ip route json`.
#pragma once

#include <string>

#include "mgmt/proto.hh"

namespace mgmt {

// 1: 64-bit integers were strings (protobuf's canonical mapping), no schema_version field.
// 2: every number a number; "schema_version" in every document; `show route ADDR`.
inline constexpr int json_schema_version = 2;

std::string to_json(const pb::Response& r);

}  // namespace mgmt
