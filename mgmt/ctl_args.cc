#include "mgmt/ctl_args.hh"

#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

namespace mgmt {
namespace po = boost::program_options;

namespace {

// Values land straight in `args` (no boost::any casts) when given one; the usage passes none.
po::options_description visible_options(ctl_args* args) {
    po::options_description o("Options");
    o.add_options()                                                                           //
        ("socket,s", po::value<std::string>(args ? &args->socket : nullptr)->value_name("PATH"),  //
         fmt::format("srv6d socket (default {})", default_socket_path).c_str())        //
        ("json,j", po::bool_switch(args ? &args->json : nullptr), "print JSON instead of text")   //
        ("interactive,i", po::bool_switch(args ? &args->interactive : nullptr),
         "the shell: a prompt with ? and TAB (the default without a command)")  //
        ("version,V", po::bool_switch(args ? &args->version : nullptr), "print srv6ctl's version")  //
        ("help,h", po::bool_switch(args ? &args->help : nullptr), "print this help");
    return o;
}

}  // namespace

ctl_command_result build_command(std::span<const std::string> words) {
    ctl_command_result r;
    auto parsed = cli::parse(words);
    if (!parsed.inv) {
        r.error = std::move(parsed.error);
        return r;
    }
    ctl_command c;
    c.inv = std::move(*parsed.inv);
    if (c.inv.cmd->build)
        if (std::string e = c.inv.cmd->build(c.inv, c.request, c.session); !e.empty()) {
            r.error = std::move(e);
            return r;
        }
    r.cmd = std::move(c);
    return r;
}

std::vector<cli::candidate> ctl_question(std::span<const std::string> words, const cli::value_source& values) {
    if (words.empty())
        return cli::complete(words, "", values);
    std::string last = words.back();
    if (last.ends_with('?'))
        last.pop_back();
    // "show ?" asks what follows `show`; "sh?" what `sh` may be.
    if (last.empty())
        return cli::complete(words.first(words.size() - 1), "", values);
    return cli::complete(words.first(words.size() - 1), last, values);
}

std::string ctl_usage() {
    std::ostringstream os;
    const char* lead = "usage: ";
    for (const auto& c : cli::commands()) {
        if (c.kind == cli::command_kind::shell)
            continue;
        os << lead << "srv6ctl [options] " << cli::synopsis(c) << "\n";
        lead = "       ";
    }
    os << "       srv6ctl [options] [-i]          the shell (stdin not a terminal: one command a line)\n"
          "       srv6ctl [options] WORDS... ?    what may follow WORDS\n"
          "Words may be abbreviated (sh ro = show routes); a last word `json` is --json.\n"
          "Exit status: 0 done, 1 srv6d unreachable, an error or not found, 2 bad command line.\n\n"
       << visible_options(nullptr);
    return os.str();
}

std::string ctl_help() {
    std::vector<cli::candidate> rows;
    for (const auto& c : cli::commands())
        rows.push_back({cli::synopsis(c), std::string(c.help)});
    return cli::format_candidates(rows) + "Words may be abbreviated; `?` after any word lists what may follow, TAB completes.\n";
}

ctl_parse_result parse_ctl_args(int argc, const char* const argv[]) {
    ctl_args args;
    po::options_description all = visible_options(&args);
    all.add_options()("words", po::value<std::vector<std::string>>(&args.words))  //
        ("complete", po::bool_switch(&args.complete));
    po::positional_options_description positional;
    positional.add("words", -1);

    ctl_parse_result result;
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        result.error = e.what();
        return result;
    }
    if (args.socket.empty()) {
        result.error = "--socket needs a path";
        return result;
    }
    if (args.help || args.version || args.complete) {
        result.args = std::move(args);
        return result;
    }
    if (args.words.empty()) {
        args.interactive = true;
        result.args = std::move(args);
        return result;
    }
    if (args.interactive) {
        result.error = "-i takes no command: srv6ctl -i opens the shell, srv6ctl COMMAND runs one";
        return result;
    }
    if (args.words.back().ends_with('?')) {
        args.question = ctl_question(args.words);
        result.args = std::move(args);
        return result;
    }
    auto built = build_command(args.words);
    if (!built.cmd) {
        result.error = std::move(built.error);
        return result;
    }
    if (built.cmd->inv.cmd->kind == cli::command_kind::shell) {
        // One-shot `help` is --help; `exit`, `end`, `quit` have nothing to leave.
        args.help = built.cmd->inv.cmd->path == "help";
        args.inv = std::move(built.cmd->inv);
        result.args = std::move(args);
        return result;
    }
    args.json = args.json || built.cmd->inv.json();
    args.request = std::move(built.cmd->request);
    args.session = std::move(built.cmd->session);
    args.inv = std::move(built.cmd->inv);
    result.args = std::move(args);
    return result;
}

}  // namespace mgmt
