// `srv6ctl trace`: VPP's `show trace` habit, one block per packet (numbered, with the worker,
// its lcore and the time), what came in, each lookup, what became of it, what went out.
#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {

namespace {
void headers(std::string& out, const char* what, uint32_t len, size_t kept,
             const google::protobuf::RepeatedPtrField<std::string>& lines) {
    out += fmt::format("  {} {} bytes{}\n", what, len, kept < len ? fmt::format(" (first {} kept)", kept) : "");
    for (const auto& l : lines)
        out += "    " + l + "\n";
}
}  // namespace

std::string format_trace(const pb::TraceRecords& t) {
    std::string out;
    int n = 0;
    for (const pb::TracePacket& p : t.packets()) {
        out += fmt::format("Packet {}  worker {} lcore {}  {}\n", ++n, p.worker(), p.lcore(), p.time());
        if (!p.in_port().empty()) {
            out += fmt::format("  in {} vrf {} {}\n", p.in_port(), p.vrf(), p.family());
            headers(out, "received", p.rx_length(), p.rx().size(), p.rx_headers());
        }
        for (const pb::TraceLookup& l : p.lookups())
            out += fmt::format("  lookup vrf {} {} -> nexthop {} {}{}\n", l.vrf(), l.key(), l.nexthop(), l.kind(),
                               l.behavior().empty() ? "" : " " + l.behavior());
        if (p.icmp())
            out += fmt::format("  refused: {} ({}); answered with ICMP\n", p.drop_reason(), p.drop_text());
        if (p.fate() == "drop")
            out += fmt::format("  drop: {} ({})\n", p.drop_reason(), p.drop_text());
        else if (p.fate() == "tx")
            out += fmt::format("  tx {}\n", p.out_port());
        else if (p.fate() == "punt")
            out += fmt::format("  punt to the host via {}\n", p.out_port());
        else if (p.fate() == "held")
            out += fmt::format("  held for the neighbor on {} (sent once it is resolved)\n", p.out_port());
        else if (p.fate() != "rx")
            out += fmt::format("  fate {}\n", p.fate());
        if (p.tx_length() != 0)
            headers(out, "sent", p.tx_length(), p.tx().size(), p.tx_headers());
        out += "\n";
    }
    if (n == 0)
        out += "no packet traced\n";
    if (t.lost() != 0)
        out += fmt::format("{} records lost (a worker's ring was full or too many packets were in flight)\n", t.lost());
    return out;
}

}  // namespace mgmt
