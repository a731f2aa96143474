// The shell uses libedit (BSD licensed, Debian's libedit2, what grout's grcli builds on): line
// editing, history and key bindings of its own functions, for `?` and TAB, without GNU
// readline's GPL on a BSD-compatible project.
#include "apps/srv6ctl/shell.hh"

#include <histedit.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "apps/srv6ctl/command.hh"

namespace srv6ctl {
namespace {

namespace cli = mgmt::cli;

std::vector<std::string> split_words(std::string_view line) {
    std::vector<std::string> out;
    std::istringstream is{std::string(line)};
    for (std::string w; is >> w;)
        out.push_back(std::move(w));
    return out;
}

struct line_words {
    std::vector<std::string> words;  // complete words before the cursor
    std::string partial;             // the word under the cursor ("" after a space)
};

line_words before_cursor(EditLine* el) {
    const LineInfo* li = el_line(el);
    const std::string_view text(li->buffer, static_cast<size_t>(li->cursor - li->buffer));
    line_words r;
    r.words = split_words(text);
    if (!text.empty() && text.back() != ' ' && text.back() != '\t' && !r.words.empty()) {
        r.partial = r.words.back();
        r.words.pop_back();
    }
    return r;
}

struct shell {
    mgmt::client client;
    bool json;

    cli::value_source values() {
        return [this](cli::value_kind k, std::string_view partial) { return values_of(client, k, partial); };
    }
};

shell* of(EditLine* el) {
    void* p = nullptr;
    el_get(el, EL_CLIENTDATA, &p);
    return static_cast<shell*>(p);
}

// TAB: the one candidate, else what the candidates share, else their list.
unsigned char on_tab(EditLine* el, int) {
    const line_words lw = before_cursor(el);
    auto cands = cli::complete(lw.words, lw.partial, of(el)->values());
    std::erase_if(cands, [](const cli::candidate& c) { return c.placeholder; });
    if (cands.empty())
        return CC_REFRESH_BEEP;
    std::string common = cands.front().word;
    for (const auto& c : cands)
        common.resize(static_cast<size_t>(std::mismatch(common.begin(), common.end(), c.word.begin(), c.word.end()).first - common.begin()));
    if (cands.size() == 1 || common.size() > lw.partial.size()) {
        std::string add = common.substr(std::min(lw.partial.size(), common.size()));
        if (cands.size() == 1 && !common.ends_with('/'))
            add += ' ';
        if (!add.empty() && el_insertstr(el, add.c_str()) == -1)
            return CC_ERROR;
        return CC_REFRESH;
    }
    std::string list = "\n";
    for (const auto& c : cands)
        list += c.word + "  ";
    list += "\n";
    std::fputs(list.c_str(), stdout);
    std::fflush(stdout);
    return CC_REDISPLAY;
}

// `?`: what may come here, one line of help each (vtysh); the line stays as typed.
unsigned char on_question(EditLine* el, int) {
    const line_words lw = before_cursor(el);
    const auto cands = cli::complete(lw.words, lw.partial, of(el)->values());
    std::string out = "?\n";
    out += cands.empty() ? "% There is no matched command.\n" : cli::format_candidates(cands);
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
    return CC_REDISPLAY;
}

const char* prompt(EditLine*) { return "srv6ctl> "; }

// Ctrl-C drops the line being typed and gives a new prompt, as in vtysh, rather than ending
// the shell: the handler only notes it; el_gets() returns early and the loop starts again.
volatile std::sig_atomic_t interrupted = 0;
void on_sigint(int) { interrupted = 1; }

std::string history_file() {
    const char* home = std::getenv("HOME");
    return home && *home ? std::string(home) + "/.srv6ctl_history" : std::string();
}

// One line of the shell or of stdin. Sets `leave` on exit, end or quit.
int run_line(mgmt::client& c, const std::string& line, bool json, bool& leave, const std::string& where) {
    const auto words = split_words(line);
    if (words.empty() || words.front().starts_with('#'))
        return 0;
    if (words.back().ends_with('?')) {
        const auto cands = mgmt::ctl_question(words);
        std::fputs(cands.empty() ? "% There is no matched command.\n" : cli::format_candidates(cands).c_str(), stdout);
        return 0;
    }
    auto built = mgmt::build_command(words);
    if (!built.cmd) {
        std::fprintf(stderr, "%s%s\n", where.empty() ? "% " : where.c_str(), built.error.c_str());
        return 2;
    }
    const auto& cmd = *built.cmd;
    if (cmd.inv.cmd->kind == cli::command_kind::shell) {
        if (cmd.inv.cmd->path == "help")
            std::fputs(mgmt::ctl_help().c_str(), stdout);
        else
            leave = true;
        return 0;
    }
    return execute(c, cmd, json || cmd.inv.json());
}

}  // namespace

int run_shell(const std::string& socket, bool json) {
    shell sh{mgmt::client(socket), json};
    if (!sh.client.connect())
        std::fprintf(stderr, "srv6ctl: %s (commands will try again)\n", sh.client.error().c_str());

    HistEvent ev;
    History* hist = history_init();
    history(hist, &ev, H_SETSIZE, 1000);
    history(hist, &ev, H_SETUNIQUE, 1);
    const std::string hfile = history_file();
    if (!hfile.empty())
        history(hist, &ev, H_LOAD, hfile.c_str());

    EditLine* el = el_init("srv6ctl", stdin, stdout, stderr);
    el_set(el, EL_CLIENTDATA, &sh);
    el_set(el, EL_EDITOR, "emacs");
    el_set(el, EL_SIGNAL, 1);
    el_set(el, EL_PROMPT, prompt);
    el_set(el, EL_HIST, history, hist);
    el_set(el, EL_ADDFN, "srv6ctl-complete", "complete the word", on_tab);
    el_set(el, EL_ADDFN, "srv6ctl-help", "list what may come next", on_question);
    el_set(el, EL_BIND, "^I", "srv6ctl-complete", nullptr);
    el_set(el, EL_BIND, "?", "srv6ctl-help", nullptr);
    el_source(el, nullptr);  // ~/.editrc, as every libedit program
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);  // no SA_RESTART: the read returns

    bool leave = false;
    while (!leave) {
        int n = 0;
        const char* got = el_gets(el, &n);
        if (interrupted) {
            interrupted = 0;
            std::fputs("\n", stdout);
            el_reset(el);
            continue;
        }
        if (got == nullptr || n <= 0) {
            std::fputs("\n", stdout);
            break;
        }
        std::string line(got, static_cast<size_t>(n));
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        history(hist, &ev, H_ENTER, line.c_str());
        if (!hfile.empty())
            history(hist, &ev, H_SAVE, hfile.c_str());
        run_line(sh.client, line, json, leave, "");
        std::fflush(stdout);
    }
    el_end(el);
    history_end(hist);
    return 0;
}

int run_lines(const std::string& socket, bool json, std::FILE* in) {
    mgmt::client c(socket);
    bool connected = false;
    int worst = 0;
    bool leave = false;
    char* buf = nullptr;
    size_t cap = 0;
    ssize_t len = 0;
    for (unsigned no = 1; !leave && (len = getline(&buf, &cap, in)) >= 0; ++no) {
        std::string line(buf, static_cast<size_t>(len));
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.pop_back();
        if (!connected && !split_words(line).empty() && !split_words(line).front().starts_with('#')) {
            if (!c.connect()) {
                std::fprintf(stderr, "srv6ctl: %s\n", c.error().c_str());
                std::free(buf);
                return 1;
            }
            connected = true;
        }
        worst = std::max(worst, run_line(c, line, json, leave, fmt::format("srv6ctl: line {}: ", no)));
    }
    std::free(buf);
    return worst;
}

}  // namespace srv6ctl
