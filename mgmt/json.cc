#include "mgmt/json.hh"

#include <fmt/format.h>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

namespace mgmt {
namespace {

namespace gp = google::protobuf;
using FD = gp::FieldDescriptor;

// protobuf's own printer writes 64-bit integers as strings (its canonical JSON mapping); a
// script reading counters wants numbers, so the messages are walked here through reflection.
void escape(std::string_view s, std::string& out) {
    out += '"';
    for (const char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
            else
                out += c;
        }
    }
    out += '"';
}

void message(const gp::Message& m, std::string& out, int depth, std::string_view head = {});

void value(const gp::Message& m, const FD* f, int i, std::string& out, int depth) {
    const gp::Reflection& r = *m.GetReflection();
    const bool rep = f->is_repeated();
    switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32: out += std::to_string(rep ? r.GetRepeatedInt32(m, f, i) : r.GetInt32(m, f)); break;
    case FD::CPPTYPE_INT64: out += std::to_string(rep ? r.GetRepeatedInt64(m, f, i) : r.GetInt64(m, f)); break;
    case FD::CPPTYPE_UINT32: out += std::to_string(rep ? r.GetRepeatedUInt32(m, f, i) : r.GetUInt32(m, f)); break;
    case FD::CPPTYPE_UINT64: out += std::to_string(rep ? r.GetRepeatedUInt64(m, f, i) : r.GetUInt64(m, f)); break;
    case FD::CPPTYPE_DOUBLE: out += fmt::format("{}", rep ? r.GetRepeatedDouble(m, f, i) : r.GetDouble(m, f)); break;
    case FD::CPPTYPE_FLOAT: out += fmt::format("{}", rep ? r.GetRepeatedFloat(m, f, i) : r.GetFloat(m, f)); break;
    case FD::CPPTYPE_BOOL: out += (rep ? r.GetRepeatedBool(m, f, i) : r.GetBool(m, f)) ? "true" : "false"; break;
    case FD::CPPTYPE_ENUM: escape(rep ? r.GetRepeatedEnum(m, f, i)->name() : r.GetEnum(m, f)->name(), out); break;
    case FD::CPPTYPE_STRING:
        if (f->type() == FD::TYPE_BYTES) {  // packet bytes (trace): hex, not protobuf's base64
            std::string hex;
            for (const char c : rep ? r.GetRepeatedString(m, f, i) : r.GetString(m, f))
                hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
            escape(hex, out);
            break;
        }
        escape(rep ? r.GetRepeatedString(m, f, i) : r.GetString(m, f), out);
        break;
    case FD::CPPTYPE_MESSAGE: message(rep ? r.GetRepeatedMessage(m, f, i) : r.GetMessage(m, f), out, depth); break;
    }
}

// `head`: members printed before the message's own fields (the top level's schema_version).
void message(const gp::Message& m, std::string& out, int depth, std::string_view head) {
    const gp::Descriptor& d = *m.GetDescriptor();
    const gp::Reflection& r = *m.GetReflection();
    const std::string in(static_cast<size_t>(depth + 1) * 2, ' ');
    out += '{';
    bool first = true;
    if (!head.empty()) {
        out += "\n" + in + std::string(head);
        first = false;
    }
    for (int k = 0; k < d.field_count(); ++k) {
        const FD* f = d.field(k);
        if (!f->is_repeated() && (f->has_presence() || f->cpp_type() == FD::CPPTYPE_MESSAGE) && !r.HasField(m, f))
            continue;  // optional and unset: absent
        out += first ? "\n" : ",\n";
        first = false;
        out += in;
        escape(f->json_name(), out);
        out += ": ";
        if (!f->is_repeated()) {
            value(m, f, -1, out, depth + 1);
            continue;
        }
        const int n = r.FieldSize(m, f);
        out += '[';
        for (int i = 0; i < n; ++i) {
            out += i ? ",\n" : "\n";
            out += in + "  ";
            value(m, f, i, out, depth + 2);
        }
        out += n ? "\n" + in + "]" : "]";
    }
    out += first ? "}" : "\n" + std::string(static_cast<size_t>(depth) * 2, ' ') + "}";
}

const std::string version_member = fmt::format("\"schema_version\": {}", json_schema_version);

std::string document(const gp::Message& m) {
    std::string out;
    message(m, out, 0, version_member);
    return out + "\n";
}

// {"schema_version": N, "<table>": [routes]}, tables in numeric order.
std::string routes_json(const pb::RouteTables& t) {
    std::string out = "{\n  " + version_member;
    for (const auto& table : t.tables()) {
        out += ",\n  \"" + std::to_string(table.table()) + "\": [";
        for (int j = 0; j < table.routes_size(); ++j) {
            out += j ? ",\n    " : "\n    ";
            message(table.routes(j), out, 2);
        }
        out += table.routes_size() ? "\n  ]" : "]";
    }
    return out + "\n}\n";
}

}  // namespace

std::string to_json(const pb::Response& r) {
    switch (r.result_case()) {
    case pb::Response::kFpm: return document(r.fpm());
    case pb::Response::kRoutes: return routes_json(r.routes());
    case pb::Response::kNexthops: return document(r.nexthops());
    case pb::Response::kSids: return document(r.sids());
    case pb::Response::kVrfs: return document(r.vrfs());
    case pb::Response::kEncapSource: return document(r.encap_source());
    case pb::Response::kCounters: return document(r.counters());
    case pb::Response::kNeighbors: return document(r.neighbors());
    case pb::Response::kL2Vpn: return document(r.l2vpn());
    case pb::Response::kRoute: return document(r.route());
    case pb::Response::kTrace: return document(r.trace());
    case pb::Response::kLogLevel: return document(r.log_level());
    case pb::Response::kMemory: return document(r.memory());
    case pb::Response::kVersion: return document(r.version());
    case pb::Response::kRunningConfig: return document(r.running_config());
    case pb::Response::kLocators: return document(r.locators());
    case pb::Response::RESULT_NOT_SET: break;
    }
    return document(r);  // an error response, or one from a newer srv6d
}

}  // namespace mgmt
