// `show running-config` and `show version`: what srv6d runs with, rendered by the daemon itself
// (the configuration in force after reloads: what a reload applied, and the running value of
// what takes a restart).
#pragma once

#include <chrono>
#include <string>

#include "apps/srv6d/config.hh"
#include "mgmt/proto.hh"

namespace srv6d {

// Every key of the key table (config_keys.hh), in its order, in srv6d.conf's syntax: what
// --check-config accepts and what a file with these lines would run with. `level` is the log
// level in force (`srv6ctl set log-level` changes it until the next reload).
std::string render_config(const config& cfg, util::level level);

struct version_facts {
    std::chrono::system_clock::time_point started;
    uint64_t reloads = 0;
    bool dataplane = false;
};
void render_version(const config& cfg, const version_facts& f, ::mgmt::pb::Version& out,
                    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace srv6d
