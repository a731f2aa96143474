// The table compiler's counters and gauges as metric families (mgmt/metrics.hh), and the
// compiled tables' memory as `show memory` answers it.
#pragma once

#include <vector>

#include "fib/control/compiler.hh"
#include "mgmt/metrics.hh"

namespace srv6d {

void compile_metrics(const fib::compiler_stats& s, std::vector<::mgmt::metric_family>& out);
// The tables' part of `show memory` (fib/datapath/mem.hh: live bytes and blocks by kind, their
// total, what is pooled) and the routes installed; the dataplane adds its mbuf pools.
void table_memory(const fib::compiler_stats& s, ::mgmt::pb::Memory& m);

}  // namespace srv6d
