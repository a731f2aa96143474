// The metrics endpoint's content: srv6d's counters in the Prometheus text exposition format
// (version 0.0.4, which Prometheus, VictoriaMetrics and OpenMetrics scrapers all read). Built
// from the same messages srv6ctl prints (Counters, FpmStatus, Memory), plus the table compiler's
// counters the daemon adds, so a metric and `srv6ctl show ...` never disagree.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mgmt/proto.hh"

namespace mgmt {

struct metric_family {
    std::string name;  // srv6d_..., with the _total suffix for counters
    std::string help;
    std::string type;  // "counter" | "gauge"
    // label text ("port=\"p0\"", escaped already by add()) and value
    std::vector<std::pair<std::string, uint64_t>> samples;

    // labels: name, value pairs; values are escaped here.
    void add(std::vector<std::pair<std::string, std::string>> labels, uint64_t v);
};

// The dataplane's counters (ports, drops by reason, SIDs, headend, ICMP, neighbor resolution).
void counter_metrics(const pb::Counters& c, std::vector<metric_family>& out);
// The FPM session and ingest, and the RIB's sizes and counters.
void fpm_metrics(const pb::FpmStatus& s, std::vector<metric_family>& out);
// The compiled tables' memory by kind, and what is pooled (show memory).
void memory_metrics(const pb::Memory& m, std::vector<metric_family>& out);
// The exposition text of `fams`, in order.
std::string exposition(const std::vector<metric_family>& fams);

}  // namespace mgmt
