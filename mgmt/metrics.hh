// The metrics endpoint's content: srv6d's counters in the Prometheus text exposition format
// (version 0.0.4) or OpenMetrics 1.0, whichever the scraper asks for (they differ in a counter's
// TYPE line and the closing `# EOF`). Built from the same messages srv6ctl prints (Counters,
// FpmStatus, Memory), plus the table compiler's counters the daemon adds, so a metric and
// `srv6ctl show ...` never disagree; and the process's own (process_*, build info).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mgmt/proto.hh"

namespace mgmt {

// A sample's value: a count (exact up to 2^64-1) or, for seconds and the like, a real number.
struct metric_value {
    uint64_t integer = 0;
    std::optional<double> real;
    std::string text() const;
};

struct metric_family {
    std::string name;  // srv6d_..., with the _total suffix for counters
    std::string help;
    std::string type;  // "counter" | "gauge"
    // label text ("port=\"p0\"", escaped already by add()) and value
    std::vector<std::pair<std::string, metric_value>> samples;

    // labels: name, value pairs; values are escaped here.
    void add(std::vector<std::pair<std::string, std::string>> labels, uint64_t v);
    void add_real(std::vector<std::pair<std::string, std::string>> labels, double v);
};

enum class exposition_format : uint8_t {
    prometheus,   // text/plain; version=0.0.4
    openmetrics,  // application/openmetrics-text; version=1.0.0
};
// The format an HTTP Accept header asks for: OpenMetrics when it names
// application/openmetrics-text (Prometheus does, preferring it), else the 0.0.4 text.
exposition_format negotiate(std::string_view accept);
std::string_view content_type(exposition_format f);

// The dataplane's counters (ports, drops by reason, SIDs, headend, ICMP, neighbor resolution).
void counter_metrics(const pb::Counters& c, std::vector<metric_family>& out);
// The FPM session and ingest, and the RIB's sizes and counters.
void fpm_metrics(const pb::FpmStatus& s, std::vector<metric_family>& out);
// The compiled tables' memory by kind, and what is pooled (show memory).
void memory_metrics(const pb::Memory& m, std::vector<metric_family>& out);
// The process's own, as every Prometheus client library exports them: process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes, process_start_time_seconds,
// process_open_fds, process_max_fds (from /proc/self; a family is left out if it cannot be read).
void process_metrics(std::vector<metric_family>& out);
// srv6d_build_info{version,dpdk} 1 and srv6d_start_time_seconds.
void build_metrics(std::string_view version, std::string_view dpdk, double start_time, std::vector<metric_family>& out);
// The exposition text of `fams`, in order.
std::string exposition(const std::vector<metric_family>& fams,
                       exposition_format f = exposition_format::prometheus);

}  // namespace mgmt
