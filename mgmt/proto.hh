// The generated management messages under a short name: mgmt::pb::Request, mgmt::pb::Response.
#pragma once

#include "srv6d_mgmt.pb.h"

namespace mgmt {
namespace pb = ::srv6d::wire::mgmt;
}  // namespace mgmt
