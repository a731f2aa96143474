#include "mgmt/json.hh"

#include <stdexcept>

#include <google/protobuf/util/json_util.h>

namespace mgmt {
namespace {

namespace gpu = google::protobuf::util;

gpu::JsonPrintOptions print_options(bool pretty) {
    gpu::JsonPrintOptions o;
    o.add_whitespace = pretty;
    o.always_print_primitive_fields = true;  // a zero counter is an answer too
    o.preserve_proto_field_names = false;    // lowerCamel, as the proto3 JSON mapping has it
    return o;
}

std::string print(const google::protobuf::Message& m, bool pretty) {
    std::string out;
    const auto st = gpu::MessageToJsonString(m, &out, print_options(pretty));
    if (!st.ok())
        throw std::runtime_error("cannot print JSON: " + st.ToString());
    return out;
}

// {"<table>": [routes]}, tables in numeric order, each route through the JSON mapping. The
// printer's output is re-indented one level per nesting: JSON text never holds a raw newline
// inside a string, so every '\n' is layout.
std::string indent(std::string json, std::string_view by) {
    while (!json.empty() && json.back() == '\n')
        json.pop_back();
    std::string out(by);
    for (char c : json) {
        out += c;
        if (c == '\n')
            out += by;
    }
    return out;
}

std::string routes_json(const pb::RouteTables& t) {
    std::string out = "{";
    for (int i = 0; i < t.tables_size(); ++i) {
        const auto& table = t.tables(i);
        out += i ? ",\n" : "\n";
        out += " \"" + std::to_string(table.table()) + "\": [";
        for (int j = 0; j < table.routes_size(); ++j) {
            out += j ? ",\n" : "\n";
            out += indent(print(table.routes(j), true), "  ");
        }
        out += table.routes_size() ? "\n ]" : "]";
    }
    out += t.tables_size() ? "\n}\n" : "}\n";
    return out;
}

}  // namespace

std::string to_json(const pb::Response& r) {
    switch (r.result_case()) {
    case pb::Response::kFpm: return print(r.fpm(), true);
    case pb::Response::kRoutes: return routes_json(r.routes());
    case pb::Response::kNexthops: return print(r.nexthops(), true);
    case pb::Response::kSids: return print(r.sids(), true);
    case pb::Response::kVrfs: return print(r.vrfs(), true);
    case pb::Response::kEncapSource: return print(r.encap_source(), true);
    case pb::Response::kCounters: return print(r.counters(), true);
    case pb::Response::kNeighbors: return print(r.neighbors(), true);
    case pb::Response::kLogLevel: return print(r.log_level(), true);
    case pb::Response::RESULT_NOT_SET: break;
    }
    return print(r, true);  // an error response, or one from a newer srv6d
}

}  // namespace mgmt
