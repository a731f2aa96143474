// The config file's INI syntax, read line by line so that every error names its line
// (`/etc/srv6d/srv6d.conf:12: ...`, as vtysh's `line 12: % Unknown command`). The syntax is what
// boost::program_options' config file parser accepted before (comments from `#` to the end of
// the line, `[section]`, `key = value` with blanks trimmed, keys before any section have no
// prefix), which has no line numbers to give.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace srv6d {

struct config_line {
    std::string key;    // "fpm.port", or "vrf" before any [section]
    std::string value;  // trimmed; may be empty
    unsigned line = 0;  // 1-based
};

struct config_text {
    std::vector<config_line> settings;  // in file order
    unsigned error_line = 0;            // 0: no error
    std::string error;                  // what is wrong on error_line, naming the key
};

// Reads `text` (a whole config file). Unknown sections and keys, lines that are neither a
// setting, a section nor a comment, and a non-repeatable key given twice are errors; values
// are not checked here (the key table does, config_keys.hh).
config_text read_config_text(std::string_view text);

}  // namespace srv6d
