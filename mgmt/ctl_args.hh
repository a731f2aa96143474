// srv6ctl's command line, parsed into the request to send: testable without a daemon.
//   srv6ctl [--socket PATH] [--json] COMMAND [json]   one command (the grammar: cli_grammar.hh)
//   srv6ctl [--socket PATH] [-i]                      the interactive shell (stdin a terminal)
//   srv6ctl [--socket PATH] < FILE                    one command a line (stdin not a terminal)
//   srv6ctl --version | --help | COMMAND-PREFIX ?
// Options may come before or after the command; command words may be abbreviated to any
// unambiguous prefix, as in vtysh ("sh ro" = "show routes").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mgmt/cli_grammar.hh"
#include "mgmt/proto.hh"

namespace mgmt {

inline constexpr std::string_view default_socket_path = "/run/srv6d/srv6d.sock";

// One command of the grammar, ready to send.
struct ctl_command {
    cli::invocation inv;
    pb::Request request;  // trace / capture: its TraceStart
    std::optional<ctl_session> session;
};

struct ctl_command_result {
    std::optional<ctl_command> cmd;
    std::string error;
};
// The words of one command (one-shot, a line of the shell or of stdin). A shell command (help,
// exit...) comes back with an empty request.
ctl_command_result build_command(std::span<const std::string> words);

struct ctl_args {
    std::string socket{default_socket_path};
    bool json = false;
    bool help = false;         // --help, `help`: print the usage and exit 0; `request` is unset
    bool version = false;      // --version: srv6ctl's version, exit 0
    bool interactive = false;  // -i, or no command: the shell (or stdin's lines)
    bool complete = false;     // --complete WORDS... PARTIAL: the candidates, one a line (bash)
    std::vector<std::string> words;  // the command words as given
    // The words ended with `?` (vtysh): list what may come next, exit 0.
    std::optional<std::vector<cli::candidate>> question;
    std::optional<cli::invocation> inv;  // the command parsed (post-processing, exit status)
    pb::Request request;  // trace / capture: its TraceStart
    std::optional<ctl_session> session;
};

struct ctl_parse_result {
    std::optional<ctl_args> args;
    std::string error;  // set when args is empty: print it with a pointer to help, exit 2
};

// argv[0] is the program name, as main() receives it. No command words at all is `interactive`.
ctl_parse_result parse_ctl_args(int argc, const char* const argv[]);
// Every command's synopsis (from the grammar) and the options.
std::string ctl_usage();
// `help` in the shell: each command and its one line of help.
std::string ctl_help();
// `WORDS... ?`: the words before it, and the start of the word `?` ends ("sh?" asks about "sh").
std::vector<cli::candidate> ctl_question(std::span<const std::string> words, const cli::value_source& values = {});

}  // namespace mgmt
