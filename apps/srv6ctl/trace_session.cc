#include "apps/srv6ctl/trace_session.hh"

#include <pcap/pcap.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>

#include "mgmt/json.hh"
#include "mgmt/text.hh"

namespace srv6ctl {
namespace {

namespace pb = mgmt::pb;

std::optional<pb::Response> call(mgmt::client& c, const pb::Request& req) {
    auto r = c.call(req);
    if (!r) {
        std::fprintf(stderr, "srv6ctl: %s\n", c.error().c_str());
        return std::nullopt;
    }
    if (!r->error().empty()) {
        std::fprintf(stderr, "srv6ctl: srv6d: %s\n", r->error().c_str());
        return std::nullopt;
    }
    return r;
}

// "2026-12-04T09:30:01.123456Z" back to a timeval for the pcap record header.
timeval timeval_of(const std::string& t) {
    timeval tv{};
    std::tm tm{};
    unsigned long usec = 0;
    if (std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%d.%luZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                    &tm.tm_min, &tm.tm_sec, &usec) == 7) {
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        tv.tv_sec = timegm(&tm);
        tv.tv_usec = static_cast<suseconds_t>(usec);
    }
    return tv;
}

// libpcap's own writer (pcap_open_dead + pcap_dump): the classic pcap format every tool
// reads. Frames as kept (the first 256 bytes), their length on the wire in the header.
bool write_pcap(const std::string& file, const std::string& mode, const pb::TraceRecords& t) {
    pcap_t* p = pcap_open_dead(DLT_EN10MB, 65535);
    if (p == nullptr) {
        std::fprintf(stderr, "srv6ctl: pcap_open_dead failed\n");
        return false;
    }
    pcap_dumper_t* d = pcap_dump_open(p, file.c_str());
    if (d == nullptr) {
        std::fprintf(stderr, "srv6ctl: %s\n", pcap_geterr(p));
        pcap_close(p);
        return false;
    }
    for (const pb::TracePacket& k : t.packets()) {
        const bool sent = mode == "tx";
        const std::string& bytes = sent ? k.tx() : k.rx();
        pcap_pkthdr h{};
        h.ts = timeval_of(k.time());
        h.caplen = static_cast<bpf_u_int32>(bytes.size());
        h.len = sent ? k.tx_length() : k.rx_length();
        pcap_dump(reinterpret_cast<u_char*>(d), &h, reinterpret_cast<const u_char*>(bytes.data()));
    }
    const bool ok = pcap_dump_flush(d) == 0;
    pcap_dump_close(d);
    pcap_close(p);
    if (!ok)
        std::fprintf(stderr, "srv6ctl: cannot write %s\n", file.c_str());
    return ok;
}

}  // namespace

int run_session(mgmt::client& c, const mgmt::ctl_args& args) {
    const mgmt::ctl_session& s = *args.session;
    if (!call(c, args.request))
        return 1;
    pb::TraceRecords all;
    pb::Request read;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(s.timeout_s);
    // The workers write into rings srv6d drains when asked: srv6ctl asks every 50 ms.
    while (static_cast<uint32_t>(all.packets_size()) < s.count && std::chrono::steady_clock::now() < until) {
        read.mutable_trace_read()->set_max(s.count - static_cast<uint32_t>(all.packets_size()));
        const auto r = call(c, read);
        if (!r)
            return 1;
        for (const auto& p : r->trace().packets())
            *all.add_packets() = p;
        all.set_lost(r->trace().lost());
        all.set_workers(r->trace().workers());
        if (static_cast<uint32_t>(all.packets_size()) < s.count)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    pb::Request stop;
    stop.mutable_trace_stop();
    const auto r = call(c, stop);
    if (!r)
        return 1;
    all.set_mode(args.request.trace_start().mode());
    all.set_port(args.request.trace_start().port());
    all.set_armed(false);
    if (s.capture) {
        if (!write_pcap(s.file, all.mode(), all))
            return 1;
        std::fprintf(stderr, "srv6ctl: %d packets written to %s%s\n", all.packets_size(), s.file.c_str(),
                     all.lost() ? (", " + std::to_string(all.lost()) + " lost").c_str() : "");
        return 0;
    }
    pb::Response out;
    *out.mutable_trace() = all;
    const std::string text = args.json ? mgmt::to_json(out) : mgmt::format_response(out);
    std::fputs(text.c_str(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace srv6ctl
