// What a reload changes: every configuration key whose value differs between the configuration
// in force and the one read again, with both values and whether srv6d applies it at run time or
// it takes a restart (and why). control_plane::reload() applies the first kind and names the
// second; nothing that changed goes unmentioned (docs/srv6d.md, "Reload").
#pragma once

#include <string>
#include <vector>

#include "apps/srv6d/config.hh"

namespace srv6d {

struct key_change {
    std::string key;       // "fpm.allow-user"
    std::string was, now;  // the values as the config spells them ("frr root" -> "frr")
    bool run_time = true;  // false: the running value stays until a restart
    std::string why;       // for a restart key: why it cannot change live
};

// In config_keys() order; one entry per key that changed.
std::vector<key_change> config_changes(const config& old, const config& now);

// Whether `key` (a config_keys() key) applies at run time, and the reason when it does not.
bool applies_at_run_time(const std::string& key, std::string* why = nullptr);

}  // namespace srv6d
