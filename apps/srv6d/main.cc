// srv6d: SRv6 L3VPN forwarding backend fed by FRR zebra over FPM. See docs/srv6d.md.
#include <cstdio>
#include <exception>

#include "apps/srv6d/config.hh"
#include "apps/srv6d/runtime.hh"
#include "util/log.hh"

int main(int argc, char** argv) {
    const auto r = srv6d::parse_args(argc, argv);
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
    try {
        return srv6d::run(r.cfg, argc > 0 ? argv[0] : "srv6d");
    } catch (const std::exception& e) {
        util::log(util::level::error, "srv6d: {}", e.what());
        return 1;
    }
}
