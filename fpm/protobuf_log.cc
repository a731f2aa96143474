#include "fpm/protobuf_log.hh"

#include <google/protobuf/stubs/logging.h>

#include <mutex>
#include <string>

#include "util/log.hh"

namespace fpm {
namespace {

void to_log(google::protobuf::LogLevel level, const char* /*file*/, int /*line*/, const std::string& msg) {
    switch (level) {
    case google::protobuf::LOGLEVEL_INFO:
        util::log(util::level::debug, "protobuf: {}", msg);
        return;
    case google::protobuf::LOGLEVEL_WARNING:
    case google::protobuf::LOGLEVEL_ERROR: {
        // What a peer's bytes can trigger, at will: one line per 10 s, like malformed FPM input.
        // The library may call from any thread.
        static std::mutex mu;
        static util::rate_limit limit;
        const std::lock_guard lock(mu);
        util::log_limited(limit, util::level::warn, "protobuf: {}", msg);
        return;
    }
    case google::protobuf::LOGLEVEL_FATAL:
        util::log(util::level::error, "protobuf (fatal): {}", msg);
        return;
    }
}

}  // namespace

void route_protobuf_log() { google::protobuf::SetLogHandler(&to_log); }

}  // namespace fpm
