// srv6ctl --json: the documents parse back into the messages they came from, and carry the
// field names scripts rely on (lowerCamel, zero values printed, routes keyed by table).
#include <gtest/gtest.h>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include "mgmt/json.hh"
#include "mgmt/render.hh"
#include "sample_rib.hh"

namespace mgmt {
namespace SRV6D_UNITY_ID {

namespace gpu = google::protobuf::util;

template <typename M>
M parse(const std::string& json) {
    M m;
    gpu::JsonParseOptions o;
    o.ignore_unknown_fields = true;  // schema_version is the document's, not the message's
    const auto st = gpu::JsonStringToMessage(json, &m, o);
    EXPECT_TRUE(st.ok()) << st.ToString() << "\n" << json;
    return m;
}

class JsonTest : public ::testing::Test {
protected:
    void SetUp() override { testing::fill_sample(rib); }
    rib::store rib;
};

TEST_F(JsonTest, RoutesAreAnObjectKeyedByTableOfRouteArrays) {
    pb::Response resp;
    *resp.mutable_routes() = render_routes(rib);
    const std::string json = to_json(resp);
    const auto doc = parse<google::protobuf::Struct>(json);
    ASSERT_EQ(doc.fields_size(), 3);
    EXPECT_EQ(doc.fields().at("schema_version").number_value(), json_schema_version);
    ASSERT_TRUE(doc.fields().contains("10"));
    ASSERT_TRUE(doc.fields().contains("254"));
    EXPECT_LT(json.find("\"10\": ["), json.find("\"254\": ["));  // numeric table order

    // Each element is exactly the Route message: parse it back and compare.
    const auto& original = resp.routes().tables(1).routes();
    const auto& list = doc.fields().at("254").list_value();
    ASSERT_EQ(list.values_size(), original.size());
    for (int i = 0; i < list.values_size(); ++i) {
        std::string one;
        ASSERT_TRUE(gpu::MessageToJsonString(list.values(i), &one).ok());
        const auto back = parse<pb::Route>(one);
        EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, original.Get(i)))
            << back.DebugString() << "\nvs\n"
            << original.Get(i).DebugString();
    }
}

TEST_F(JsonTest, RouteFieldNames) {
    pb::Response resp;
    *resp.mutable_routes() = render_routes(rib, rib::main_table);
    const std::string json = to_json(resp);
    for (const char* field : {"\"prefix\": \"10.3.0.0/24\"", "\"protocol\": 186", "\"protocolName\": \"bgp\"",
                              "\"nhId\": 40", "\"resolveState\": \"partial\"", "\"missingIds\": [", "\"type\": \"blackhole\"",
                              "\"gateway\": \"fe80::1\"", "\"ifindex\": 5", "\"onlink\": false", "\"weight\": 3",
                              "\"labels\": [", "\"mode\": \"H.Encaps\"", "\"segments\": [", "\"behavior\": \"End.DT46\"", "\"vrftable\": 10", "\"table\": 254"}) {
        EXPECT_NE(json.find(field), std::string::npos) << field;
    }
    // Absent optional values are absent, not empty strings.
    EXPECT_EQ(json.find("\"source\""), std::string::npos);
    EXPECT_EQ(json.find("\"gateway\": \"\""), std::string::npos);
}

TEST_F(JsonTest, EmptyRoutesIsAnEmptyObject) {
    pb::Response resp;
    resp.mutable_routes();
    EXPECT_EQ(to_json(resp), "{\n  \"schema_version\": 2\n}\n");
}

TEST_F(JsonTest, FpmRoundTripAndCountersAsNumbers) {
    fpm::session_info si;
    si.connected = true;
    si.connections = 3;
    fpm::ingest_stats st;
    st.frames = 42;
    pb::Response resp;
    *resp.mutable_fpm() = render_fpm(si, st, rib);
    const std::string json = to_json(resp);
    EXPECT_NE(json.find("\"connections\": 3,"), std::string::npos) << json;  // uint64: a number
    EXPECT_NE(json.find("\"frames\": 42,"), std::string::npos);
    EXPECT_EQ(json.find("{\n  \"schema_version\": 2,\n  \"connected\": true,"), 0u) << json;
    // Every number is a number: no quoted digits anywhere.
    EXPECT_EQ(json.find(": \"4"), std::string::npos) << json;
    EXPECT_NE(json.find("\"resyncPending\": false"), std::string::npos);
    EXPECT_NE(json.find("\"name\": \"frame_bad_version\""), std::string::npos);  // zero reasons too
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(parse<pb::FpmStatus>(json), resp.fpm()));
}

TEST_F(JsonTest, NexthopsAndSidsRoundTrip) {
    pb::Response resp;
    *resp.mutable_nexthops() = render_nexthops(rib);
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(parse<pb::NexthopTable>(to_json(resp)), resp.nexthops()));
    const vrf::registry vrfs;
    *resp.mutable_sids() = render_sids(rib, vrfs);
    const std::string json = to_json(resp);
    EXPECT_NE(json.find("\"behavior\": \"uN\""), std::string::npos);
    EXPECT_NE(json.find("\"lcblockBits\": 32"), std::string::npos);
    EXPECT_NE(json.find("\"state\": \"refused\""), std::string::npos);
    EXPECT_NE(json.find("\"reason\": \"table 10 is not bound to any VRF\""), std::string::npos);
    EXPECT_NE(json.find("\"refusal\": \"table_unbound\""), std::string::npos);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(parse<pb::SidTable>(json), resp.sids()));
}

TEST_F(JsonTest, VrfsAndEncapSourceRoundTrip) {
    vrf::registry vrfs;
    vrf::vrf_spec red;
    red.name = "red";
    red.table = 10;
    red.members = {{"e1", 0}};
    (void)vrfs.set(vrf::source::config, red);
    pb::Response resp;
    *resp.mutable_vrfs() = render_vrfs(vrfs, "not followed: no netlink");
    std::string json = to_json(resp);
    EXPECT_NE(json.find("\"configTable\": 10"), std::string::npos) << json;
    EXPECT_EQ(json.find("\"kernelTable\""), std::string::npos) << json;  // optional, unset: absent
    EXPECT_NE(json.find("\"source\": \"config\""), std::string::npos) << json;
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(parse<pb::VrfTable>(json), resp.vrfs()));

    vrf::encap_source_resolver res;
    const auto cfg = rib::parse_ip6("fc00:0:1::9");
    res.set_configured(cfg);
    *resp.mutable_encap_source() = render_encap_source(res, cfg);
    json = to_json(resp);
    EXPECT_NE(json.find("\"address\": \"fc00:0:1::9\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"origin\": \"config\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"kernelTunsrc\": \"unknown\""), std::string::npos) << json;
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(parse<pb::EncapSource>(json), resp.encap_source()));
}

TEST_F(JsonTest, LargeCountersAndEscapesStayExact) {
    pb::Response resp;
    auto& c = *resp.mutable_counters();
    c.set_dataplane(true);
    auto* p = c.add_ports();
    p->set_name("a\"b\\c\x01");
    p->set_rx_packets(18446744073709551615ull);  // 2^64 - 1: exact in the text
    const std::string json = to_json(resp);
    EXPECT_NE(json.find("\"rxPackets\": 18446744073709551615,"), std::string::npos) << json;
    EXPECT_NE(json.find("\"name\": \"a\\\"b\\\\c\\u0001\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"drops\": []"), std::string::npos) << json;  // empty repeated: printed
    EXPECT_EQ(json.find("\"icmp\""), std::string::npos) << json;        // unset message: absent
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(parse<pb::Counters>(json), c));
}

TEST_F(JsonTest, ErrorResponseIsTheWholeResponse) {
    pb::Response resp;
    resp.set_error("no such table");
    EXPECT_NE(to_json(resp).find("\"error\": \"no such table\""), std::string::npos);
}

}  // namespace
}  // namespace mgmt
