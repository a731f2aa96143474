// srv6ctl: asks srv6d over its management socket and prints the answer, as text or JSON.
// Exit status: 0 answered, 1 srv6d unreachable or answered with an error, 2 bad command line.
#include <cstdio>
#include <exception>
#include <string>

#include "apps/srv6ctl/trace_session.hh"
#include "mgmt/client.hh"
#include "mgmt/ctl_args.hh"
#include "mgmt/json.hh"
#include "mgmt/text.hh"

namespace {

int run(int argc, const char* const argv[]) {
    const auto parsed = mgmt::parse_ctl_args(argc, argv);
    if (!parsed.args) {
        std::fprintf(stderr, "srv6ctl: %s\n\n%s", parsed.error.c_str(), mgmt::ctl_usage().c_str());
        return 2;
    }
    const auto& args = *parsed.args;
    if (args.help) {
        std::fputs(mgmt::ctl_usage().c_str(), stdout);
        return 0;
    }
    mgmt::client c(args.socket);
    if (!c.connect()) {
        std::fprintf(stderr, "srv6ctl: %s\n", c.error().c_str());
        return 1;
    }
    if (args.session)
        return srv6ctl::run_session(c, args);
    const auto resp = c.call(args.request);
    if (!resp) {
        std::fprintf(stderr, "srv6ctl: %s\n", c.error().c_str());
        return 1;
    }
    if (!resp->error().empty()) {
        std::fprintf(stderr, "srv6ctl: srv6d: %s\n", resp->error().c_str());
        return 1;
    }
    const std::string out = args.json ? mgmt::to_json(*resp) : mgmt::format_response(*resp);
    std::fputs(out.c_str(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "srv6ctl: %s\n", e.what());
        return 1;
    }
}
