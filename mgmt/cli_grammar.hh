// srv6ctl's commands as one table: the one-shot command line, the interactive shell's `?` and
// TAB, `srv6ctl help`, bash completion (srv6ctl --complete) and the checks of the man page and
// docs/srv6ctl.md (tests/unit/mgmt/cli_docs_test.cc) all read it. A new command is one row.
//
// Matching is vtysh's: a keyword may be cut to any prefix that names one candidate; a prefix
// of several is resolved by the words that follow when exactly one reading parses (`sh ro`
// is `show routes`, `sh ro 10.0.0.1` is `show route ADDR`), else it is an error naming them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mgmt/proto.hh"

namespace mgmt {

// trace / capture: srv6ctl arms the request, reads records until it has `count` of them or
// `timeout_s` passed, stops it; capture writes them to `file` (a pcap).
struct ctl_session {
    bool capture = false;
    uint32_t count = 0;
    uint32_t timeout_s = 10;
    std::string file;
};

namespace cli {

// What a value is; completion asks srv6d (or the file system) for the kinds it can list.
enum class value_kind : uint8_t {
    none,               // a flag: the keyword alone
    vrf,                // a VRF name
    vrf_or_all,         // a VRF name or `all`
    port,               // an srv6d port name
    sid,                // a local SID (an IPv6 address)
    address,            // an IPv4 or IPv6 address
    address_or_prefix,  // A.B.C.D[/M] or X:X::X:X[/M]
    table_id,           // 0..4294967295
    count,              // 1..65535
    seconds,            // 1..86400
    file,               // a path
    level,              // a log level
};

struct param {
    std::string_view keyword;  // "" for a positional value
    value_kind value = value_kind::none;
    std::string_view metavar;  // the value's name in synopses: NAME, ADDR, N
    std::string_view help;     // one line
    uint8_t group = 0;         // params of one non-zero group exclude each other
    bool required = false;

    bool positional() const { return keyword.empty(); }
    // The key an invocation stores the param under: its keyword, else its metavar.
    std::string_view key() const { return positional() ? metavar : keyword; }
};

struct invocation;

enum class command_kind : uint8_t {
    request,  // one request to srv6d, its answer printed
    session,  // trace / capture: a request, its records read until done
    shell,    // help, exit, end, quit: srv6ctl's own
};

struct command {
    std::string_view path;  // its keywords, one space apart
    std::string_view help;  // one line
    std::vector<param> params;
    command_kind kind = command_kind::request;
    // request / session: fills the request (and the session); returns an error or "".
    std::string (*build)(const invocation&, pb::Request&, std::optional<ctl_session>&) = nullptr;
    // What srv6ctl does to the answer before printing it (a SID filter); may be null.
    void (*post)(const invocation&, pb::Response&) = nullptr;
    // The vtysh spelling of another command ("show ip route" of "show routes"): documented as such.
    std::string_view vtysh_of;
};

struct invocation {
    const command* cmd = nullptr;
    std::map<std::string, std::string, std::less<>> values;  // by param::key(); "" for flags

    bool has(std::string_view key) const { return values.find(key) != values.end(); }
    const std::string* get(std::string_view key) const;
    bool json() const { return has("json"); }
};

// Every command, in the order help lists them.
const std::vector<command>& commands();
// "show routes [table N | vrf NAME] [json]"
std::string synopsis(const command& c);
// The same in roff, as man/srv6ctl.8 has it after each .TP: keywords bold, values italic.
std::string roff_synopsis(const command& c);
// One line of help for a keyword that is not a whole command ("show", "show ip").
std::string_view prefix_help(std::string_view path);

struct parse_result {
    std::optional<invocation> inv;
    std::string error;  // when inv is empty: the error, ready to print after "srv6ctl: "
};
parse_result parse(std::span<const std::string> words);

// The words that may come next: keywords, and for a value either its placeholder (`?`) or the
// values srv6d has (TAB).
struct candidate {
    std::string word;
    std::string help;
    bool placeholder = false;  // NAME, ADDR, "<cr>": shown by `?`, never inserted by TAB
};
// Lists what srv6d (or the file system) has for a kind; empty when it cannot tell.
using value_source = std::function<std::vector<std::string>(value_kind, std::string_view partial)>;
// `words`: complete words before the word being typed; `partial`: that word ("" after a space).
// Sorted, without duplicates; empty when `words` do not parse as the start of a command.
std::vector<candidate> complete(std::span<const std::string> words, std::string_view partial,
                                const value_source& values = {});

// `?`'s listing: one candidate a line, the word padded to a column, then its help.
std::string format_candidates(const std::vector<candidate>& c);
// The closest of `candidates` to `word` when it is a likely typo (a missing, extra, wrong or
// swapped letter or two); "" when none is close.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

}  // namespace cli
}  // namespace mgmt
