// The metrics endpoint: a real scrape over HTTP on loopback, the body parsed strictly by hand
// (the text exposition format, version 0.0.4) and by the Prometheus client's own parser.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#pragma GCC diagnostic pop

#include "mgmt/metrics.hh"
#include "mgmt/metrics_server.hh"

namespace mgmt {
namespace SRV6D_UNITY_ID {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

pb::Counters sample_counters() {
    pb::Counters c;
    c.set_dataplane(true);
    c.set_workers(2);
    auto* p = c.add_ports();
    p->set_name("core");
    p->set_vrf("default");
    p->set_rx_packets(18446744073709551615ull);
    p->set_tx_packets(7);
    p->set_rx_missed(13);
    p->set_tx_errors(2);
    p->set_link_up(true);
    auto* q = c.add_ports();
    q->set_name("ce\"1\\");  // escaped in the label
    q->set_vrf("blue");
    auto* w = c.add_per_worker();
    w->set_rx_packets(11);
    w->set_tx_packets(10);
    w = c.add_per_worker();
    w->set_worker(1);
    w->set_lcore(2);
    w->set_tx_packets(12);
    auto* v = c.add_ports();  // an 802.1Q sub-port of core
    v->set_name("core.100");
    v->set_vrf("red");
    v->set_parent("core");
    v->set_vlan(100);
    v->set_rx_packets(4);
    auto* d = c.add_drops();
    d->set_reason("no_route");
    d->set_packets(3);
    auto* s = c.add_sids();
    s->set_prefix("fc00:0:1:e000::/64");
    s->set_behavior("End.DT46");
    s->set_packets(5);
    s->set_bytes(500);
    auto* h = c.add_headend();
    h->set_behavior("H.Encaps");
    h->set_packets(9);
    return c;
}

// Strict: every line a # HELP, a # TYPE, or a sample of the family the last TYPE named;
// names and label names as the format allows; values unsigned integers. Returns
// "name{labels}" -> value.
std::map<std::string, std::string> parse_strict(const std::string& body) {
    static const std::regex help(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+)");
    static const std::regex type(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge))");
    static const std::regex sample(
        R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*")*\})? ([0-9]+(\.[0-9]+)?(e\+[0-9]+)?))");
    std::map<std::string, std::string> out;
    std::istringstream in(body);
    std::string line, family;
    std::smatch m;
    EXPECT_FALSE(body.empty());
    EXPECT_EQ(body.back(), '\n');
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, help)) {
            continue;
        } else if (std::regex_match(line, m, type)) {
            family = m[1];
        } else if (std::regex_match(line, m, sample)) {
            EXPECT_EQ(m[1], family) << line;
            out[m[1].str() + m[2].str()] = m[7];
        } else {
            ADD_FAILURE() << "not exposition format: " << line;
        }
    }
    return out;
}

struct scrape_result {
    std::string status, headers, body;
};

scrape_result scrape(uint16_t port, const std::string& request) {
    asio::io_context io;
    tcp::socket s(io);
    s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    asio::write(s, asio::buffer(request));
    std::string all;
    boost::system::error_code ec;
    asio::read(s, asio::dynamic_buffer(all), ec);  // until the server closes
    scrape_result r;
    const auto eol = all.find("\r\n"), end = all.find("\r\n\r\n");
    if (eol == std::string::npos || end == std::string::npos)
        return r;
    r.status = all.substr(0, eol);
    r.headers = all.substr(eol + 2, end - eol - 2);
    r.body = all.substr(end + 4);
    return r;
}

TEST(Metrics, ParseListen) {
    EXPECT_EQ(parse_listen("127.0.0.1:9464")->port, 9464);
    EXPECT_EQ(parse_listen("[::1]:9464")->host, "::1");
    EXPECT_FALSE(parse_listen("::1:9464"));
    EXPECT_FALSE(parse_listen("localhost:9464"));
    EXPECT_FALSE(parse_listen("127.0.0.1:99999"));
    EXPECT_FALSE(parse_listen("127.0.0.1"));
}

TEST(Metrics, ScrapeOverHttpParsesStrictlyAndWithThePrometheusParser) {
    std::vector<metric_family> fams;
    counter_metrics(sample_counters(), fams);
    pb::FpmStatus fpm;
    fpm.set_connected(true);
    fpm.set_connections(2);
    fpm.mutable_ingest()->set_frames(42);
    auto* r = fpm.mutable_ingest()->add_reasons();
    r->set_name("frame_bad_version");
    r->set_error(true);
    fpm.mutable_rib()->set_routes(12);
    fpm.set_connected_seconds(75);
    fpm.set_idle_seconds(3);
    fpm_metrics(fpm, fams);
    build_metrics("0.1", "22.11.4", 1796361766.25, fams);
    process_metrics(fams);
    const std::string text = exposition(fams);
    const std::string om = exposition(fams, exposition_format::openmetrics);

    asio::io_context io;
    int scrapes = 0;
    metrics_server srv(io, *parse_listen("127.0.0.1:0"), [&](exposition_format f) {
        ++scrapes;
        return exposition(fams, f);
    });
    const uint16_t port = srv.port();
    ASSERT_NE(port, 0);
    auto work = asio::make_work_guard(io);
    std::thread t([&] { io.run(); });

    const auto ok = scrape(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n");
    // What Prometheus 2.x sends: OpenMetrics preferred.
    const auto prom = scrape(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nACCEPT: application/openmetrics-text;"
                                   "version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;"
                                   "version=0.0.4;q=0.5,*/*;q=0.1\r\n\r\n");
    const auto notfound = scrape(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    const auto post = scrape(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    const auto big = scrape(port, "GET /metrics HTTP/1.1\r\nX: " + std::string(10000, 'a') + "\r\n\r\n");
    work.reset();
    asio::post(io, [&] { srv.close(); });
    t.join();

    EXPECT_EQ(ok.status, "HTTP/1.1 200 OK");
    EXPECT_NE(ok.headers.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << ok.headers;
    EXPECT_EQ(ok.body, text);
    EXPECT_EQ(notfound.status, "HTTP/1.1 404 Not Found");
    EXPECT_EQ(post.status, "HTTP/1.1 405 Method Not Allowed");
    EXPECT_EQ(big.status, "HTTP/1.1 431 Request Header Fields Too Large");
    EXPECT_EQ(scrapes, 2);
    EXPECT_EQ(prom.status, "HTTP/1.1 200 OK");
    EXPECT_NE(prom.headers.find("Content-Type: application/openmetrics-text; version=1.0.0"), std::string::npos)
        << prom.headers;
    EXPECT_EQ(prom.body.substr(0, prom.body.find("process_")), om.substr(0, om.find("process_")));
    EXPECT_TRUE(prom.body.ends_with("\n# EOF\n"));
    EXPECT_NE(om.find("# TYPE srv6d_drops counter\nsrv6d_drops_total{"), std::string::npos) << om;

    const auto m = parse_strict(ok.body);
    EXPECT_EQ(m.at("srv6d_port_rx_packets_total{port=\"core\",vrf=\"default\"}"), "18446744073709551615");
    EXPECT_EQ(m.at("srv6d_port_tx_packets_total{port=\"ce\\\"1\\\\\",vrf=\"blue\"}"), "0");
    EXPECT_EQ(m.at("srv6d_port_link_up{port=\"core\",vrf=\"default\"}"), "1");
    EXPECT_EQ(m.at("srv6d_port_rx_missed_total{port=\"core\",vrf=\"default\"}"), "13");
    EXPECT_EQ(m.at("srv6d_port_tx_errors_total{port=\"core\",vrf=\"default\"}"), "2");
    EXPECT_EQ(m.at("srv6d_port_rx_nombuf_total{port=\"core\",vrf=\"default\"}"), "0");
    EXPECT_EQ(m.at("srv6d_port_rx_packets_total{port=\"core.100\",vrf=\"red\"}"), "4");
    EXPECT_EQ(m.at("srv6d_port_vlan_info{port=\"core.100\",parent=\"core\",vlan=\"100\"}"), "1");
    EXPECT_EQ(m.count("srv6d_port_vlan_info{port=\"core\",parent=\"\",vlan=\"0\"}"), 0u) << "ports are no sub-ports";
    EXPECT_EQ(m.at("srv6d_drops_total{reason=\"no_route\"}"), "3");
    EXPECT_EQ(m.at("srv6d_worker_rx_packets_total{worker=\"0\"}"), "11");
    EXPECT_EQ(m.at("srv6d_worker_tx_packets_total{worker=\"1\"}"), "12");
    EXPECT_EQ(m.at("srv6d_sid_packets_total{sid=\"fc00:0:1:e000::/64\",behavior=\"End.DT46\"}"), "5");
    EXPECT_EQ(m.at("srv6d_headend_packets_total{behavior=\"H.Encaps\"}"), "9");
    EXPECT_EQ(m.at("srv6d_fpm_frames_total"), "42");
    EXPECT_EQ(m.at("srv6d_fpm_connected"), "1");
    EXPECT_EQ(m.at("srv6d_fpm_reasons_total{reason=\"frame_bad_version\",kind=\"error\"}"), "0");
    EXPECT_EQ(text.find("=\"true\""), std::string::npos) << "no boolean labels";
    EXPECT_EQ(m.at("srv6d_fpm_session_age_seconds"), "75");
    EXPECT_EQ(m.at("srv6d_fpm_last_frame_age_seconds"), "3");
    EXPECT_EQ(m.at("srv6d_build_info{version=\"0.1\",dpdk=\"22.11.4\"}"), "1");
    EXPECT_EQ(m.at("srv6d_start_time_seconds"), "1796361766.25");
    for (const char* p : {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                          "process_start_time_seconds", "process_open_fds", "process_max_fds"})
        EXPECT_EQ(m.count(p), 1u) << p;
    EXPECT_GT(std::stoull(m.at("process_resident_memory_bytes")), 1u << 20);
    EXPECT_GT(std::stoull(m.at("process_open_fds")), 2u);
    EXPECT_EQ(m.at("srv6d_rib_entries{kind=\"routes\"}"), "12");

    // The Prometheus client's parser (python3-prometheus-client, scripts/deps.sh) reads it too;
    // Debian's python3, where that package lives, whatever python3 comes first in PATH.
    const std::string file = ::testing::TempDir() + "srv6d-metrics.txt";
    const std::string om_file = ::testing::TempDir() + "srv6d-metrics.om";
    std::ofstream(file) << ok.body;
    std::ofstream(om_file) << prom.body;
    // Both parsers of the Prometheus client: the 0.0.4 text one on the plain scrape, the
    // OpenMetrics one (strict: family names, counters' _total, # EOF) on the negotiated one; every
    // family typed as declared (a counter's samples read as the counter's, not "unknown").
    const std::string cmd =
        "/usr/bin/python3 -c 'import sys\n"
        "from prometheus_client.parser import text_string_to_metric_families as p\n"
        "from prometheus_client.openmetrics.parser import text_string_to_metric_families as om\n"
        "fams = list(p(open(sys.argv[1]).read()))\n"
        "ofams = list(om(open(sys.argv[2]).read()))\n"
        "for fs in (fams, ofams):\n"
        "  assert all(f.type in (\"counter\", \"gauge\") for f in fs), [(f.name, f.type) for f in fs]\n"
        "  s = {x.name + str(sorted(x.labels.items())): x.value for f in fs for x in f.samples}\n"
        "  assert s[\"srv6d_drops_total[(\\x27reason\\x27, \\x27no_route\\x27)]\"] == 3, s\n"
        "  assert s[\"process_start_time_seconds[]\"] > 1.7e9, s\n"
        "assert len(fams) == len(ofams)\n"
        "print(len(fams))' " + file + " " + om_file;
    FILE* py = ::popen(cmd.c_str(), "r");
    ASSERT_NE(py, nullptr);
    char buf[64] = {};
    const bool got = std::fgets(buf, sizeof buf, py) != nullptr;
    EXPECT_EQ(::pclose(py), 0) << "a Prometheus parser refused the scrape";
    ASSERT_TRUE(got);
    EXPECT_EQ(std::stoul(buf), fams.size());
}

}  // namespace
}  // namespace mgmt
