// The table compiler's counters and gauges as metric families (mgmt/metrics.hh).
#pragma once

#include <vector>

#include "fib/control/compiler.hh"
#include "mgmt/metrics.hh"

namespace srv6d {

void compile_metrics(const fib::compiler_stats& s, std::vector<::mgmt::metric_family>& out);

}  // namespace srv6d
