// srv6ctl: asks srv6d over its management socket and prints the answer, as text or JSON; without
// a command, a shell (apps/srv6ctl/shell.hh).
// Exit status: 0 answered, 1 srv6d unreachable, answered with an error or found nothing, 2 bad
// command line.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>

#include "apps/srv6ctl/command.hh"
#include "apps/srv6ctl/shell.hh"
#include "mgmt/client.hh"
#include "mgmt/ctl_args.hh"

#ifndef SRV6D_VERSION
#define SRV6D_VERSION "unknown"
#endif

namespace {

// --complete WORDS... PARTIAL (bash completion): the candidates TAB would offer, one a line.
int complete(const mgmt::ctl_args& args) {
    std::vector<std::string> words = args.words;
    std::string partial;
    if (!words.empty()) {
        partial = words.back();
        words.pop_back();
    }
    // A short wait: completion must not hang the terminal when srv6d does not answer.
    mgmt::client c(args.socket, std::chrono::milliseconds(500));
    const bool up = c.connect();
    const auto cands = mgmt::cli::complete(words, partial, [&](mgmt::cli::value_kind k, std::string_view p) {
        if (!up && k != mgmt::cli::value_kind::file)
            return std::vector<std::string>{};
        return srv6ctl::values_of(c, k, p);
    });
    for (const auto& x : cands)
        if (!x.placeholder)
            std::printf("%s\n", x.word.c_str());
    return 0;
}

int run(int argc, const char* const argv[]) {
    const auto parsed = mgmt::parse_ctl_args(argc, argv);
    if (!parsed.args) {
        std::fprintf(stderr, "srv6ctl: %s\n(srv6ctl help: the commands; srv6ctl WORDS ?: what may follow WORDS)\n",
                     parsed.error.c_str());
        return 2;
    }
    const auto& args = *parsed.args;
    if (args.help) {
        std::fputs(mgmt::ctl_usage().c_str(), stdout);
        return 0;
    }
    if (args.version) {
        std::puts("srv6ctl " SRV6D_VERSION);
        return 0;
    }
    if (args.complete)
        return complete(args);
    if (args.question) {
        std::fputs(args.question->empty() ? "% There is no matched command.\n"
                                          : mgmt::cli::format_candidates(*args.question).c_str(),
                   stdout);
        return 0;
    }
    if (args.interactive)
        return isatty(STDIN_FILENO) ? srv6ctl::run_shell(args.socket, args.json)
                                    : srv6ctl::run_lines(args.socket, args.json, stdin);
    if (args.inv && args.inv->cmd->kind == mgmt::cli::command_kind::shell)
        return 0;  // exit, end, quit: nothing to leave
    mgmt::client c(args.socket);
    if (!c.connect()) {
        std::fprintf(stderr, "srv6ctl: %s\n", c.error().c_str());
        return 1;
    }
    mgmt::ctl_command cmd{*args.inv, args.request, args.session};
    return srv6ctl::execute(c, cmd, args.json);
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
