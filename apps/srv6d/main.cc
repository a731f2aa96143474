// srv6d: SRv6 L3VPN forwarding backend fed by FRR zebra over FPM. See docs/srv6d.md.
#include <cstdio>
#include <exception>

#include "apps/srv6d/config.hh"
#include "apps/srv6d/runtime.hh"
#include "fpm/protobuf_log.hh"
#include "util/log.hh"

int main(int argc, char** argv) {
    const auto r = srv6d::parse_args(argc, argv);
    if (r.check_only) {
        if (r.what == srv6d::action::error) {
            std::fprintf(stderr, "srv6d: %s\n", r.text.c_str());
            return 1;
        }
        // The EAL settings: refused anywhere (an error), or not startable on this host now (a
        // warning: the file may be for another host, pages may be reserved before srv6d starts).
        const auto host = srv6d::check_host(r.cfg);
        if (!host.error.empty()) {
            std::fprintf(stderr, "srv6d: %s: %s\n", r.cfg.config_file.c_str(), host.error.c_str());
            return 1;
        }
        for (const auto& w : host.warnings)
            std::fprintf(stderr, "srv6d: %s: warning: on this host, srv6d would not start its dataplane: %s\n",
                         r.cfg.config_file.c_str(), w.c_str());
        std::printf("srv6d: %s: configuration OK\n", r.cfg.config_file.c_str());
        return 0;
    }
    switch (r.what) {
    case srv6d::action::help:
    case srv6d::action::version:
        std::fputs(r.text.c_str(), stdout);
        return 0;
    case srv6d::action::error:
        std::fprintf(stderr, "srv6d: %s\n(see srv6d --help)\n", r.text.c_str());
        return 2;
    case srv6d::action::run:
        break;
    }
    util::set_level(r.cfg.log_level);
    util::set_target(r.cfg.log_target);
    fpm::route_protobuf_log();
    try {
        return srv6d::run(r.cfg, argc > 0 ? argv[0] : "srv6d", [argc, argv] { return srv6d::parse_args(argc, argv); });
    } catch (const std::exception& e) {
        util::log(util::level::error, "srv6d: {}", e.what());
        return 1;
    }
}
