// Every srv6d setting in one table: its section and name, the shape of its value, its help and
// default text, and the function that validates and sets it. The parser (options, --help, the
// order keys apply in), the unknown-key error and the docs check (tests/unit/apps) all read it:
// a new key is one row.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "apps/srv6d/config.hh"

namespace srv6d {

struct config_key {
    const char* section;     // INI section; "" for keys that go before any [section] (vrf)
    const char* name;        // the key inside its section
    const char* arg;         // the value's shape, for --help ("VALUE" for plain values)
    const char* help;        // what it does
    const char* def;         // the default as etc/srv6d.conf and docs/srv6d.md show it; "" = none
    bool repeatable;         // every line counts (in order); the command line's lines replace the file's
    // Validates `value` into `cfg`; returns the error (naming key and value) or "".
    std::string (*apply)(config& cfg, const std::string& key, const std::string& value);

    std::string key() const;  // "section.name", or "name" for a key outside any section
};

// In --help order: plain keys first, then the repeatable ones.
std::span<const config_key> config_keys();

const config_key* find_config_key(std::string_view key);

// "unknown setting 'fpm.prot' (did you mean 'fpm.port'?)"; without a near one, the keys of its
// section ("[fpm] has: listen, port, ...") or the sections: a short line, not every key.
std::string unknown_key_error(std::string_view key);

// The section nearest to a mistyped one ("fmp" -> "fpm"), or "" when none is near.
std::string nearest_section(std::string_view name);
// "[fpm] [mgmt] [rib] ...": every section, in table order.
std::string section_list();

}  // namespace srv6d
