// srv6ctl --json: the result message of a response through protobuf's JSON mapping
// (lowerCamel names, zero values printed, 64-bit integers as strings; see srv6d_mgmt.proto).
// `show routes` is reshaped to an object keyed by table id whose values are route arrays,
// {"254": [{"prefix": ...}, ...]}, close to zebra's `show ip route json`.
#pragma once

#include <string>

#include "mgmt/proto.hh"

namespace mgmt {

// Throws std::runtime_error if protobuf cannot print the message (it never should).
std::string to_json(const pb::Response& r);

}  // namespace mgmt
