// The matcher of the grammar table (cli_commands.cc): every reading of the words so far is a
// state; a word moves each state on (an ambiguous prefix forks it), a state with nowhere to go
// is dropped with its error. parse() and complete() walk the same states, so TAB and `?` offer
// exactly what parse() accepts.
#include "mgmt/cli_grammar.hh"

#include <algorithm>
#include <charconv>
#include <climits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rib/addr.hh"

namespace mgmt::cli {
namespace {

struct state {
    std::string path;              // keywords matched so far ("show ip")
    const command* cmd = nullptr;  // set once `path` is a whole command: its params follow
    std::vector<bool> used;
    int pending = -1;              // the param whose value is the next word
    std::vector<std::string> choices;  // the keyword each word was read as ("" for values)
    unsigned inexact = 0;          // keywords read from a prefix when the word named another exactly
    invocation inv;
};

std::vector<std::string> split(std::string_view s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        const size_t j = std::min(s.find(' ', i), s.size());
        out.emplace_back(s.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

bool starts_with_words(std::string_view path, std::string_view prefix) {
    return prefix.empty() || (path.starts_with(prefix) && (path.size() == prefix.size() || path[prefix.size()] == ' '));
}

const command* command_at(std::string_view path) {
    for (const auto& c : commands())
        if (c.path == path)
            return &c;
    return nullptr;
}

// The keywords that may follow `path`, in table order, without repeats.
std::vector<std::string> next_keywords(std::string_view path) {
    std::vector<std::string> out;
    const size_t depth = path.empty() ? 0 : split(path).size();
    for (const auto& c : commands()) {
        if (c.path == path || !starts_with_words(c.path, path))
            continue;
        std::string w = split(c.path)[depth];
        if (std::find(out.begin(), out.end(), w) == out.end())
            out.push_back(std::move(w));
    }
    return out;
}

// Every keyword `word` is a prefix of. An exact keyword wins (`ip` over `ipv6`), but the longer
// ones stay readings of lower rank: `show route vrf red` is `show routes vrf red`, as it was
// before `show route ADDR` existed.
std::vector<std::string> matching(std::string_view word, const std::vector<std::string>& keywords) {
    std::vector<std::string> out;
    if (word.empty())
        return out;
    for (const auto& k : keywords)
        if (k.starts_with(word))
            out.push_back(k);
    return out;
}

std::optional<uint64_t> parse_number(std::string_view s) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

constexpr std::array<std::string_view, 4> levels{"error", "warn", "info", "debug"};

// The value as stored (a level's full name), or nullopt with `error`.
std::optional<std::string> check_value(const param& p, std::string_view w, std::string& error) {
    switch (p.value) {
    case value_kind::none: break;
    case value_kind::vrf:
    case value_kind::vrf_or_all:
    case value_kind::port:
    case value_kind::file:
        if (!w.empty())
            return std::string(w);
        error = fmt::format("{} cannot be empty", p.metavar);
        return std::nullopt;
    case value_kind::sid:
        if (auto a = rib::parse_addr(w); a && a->is_v6())
            return std::string(w);
        error = fmt::format("'{}' is not a SID (an IPv6 address)", w);
        return std::nullopt;
    case value_kind::address:
        if (rib::parse_addr(w))
            return std::string(w);
        if (rib::parse_prefix(w))
            error = fmt::format("'{}' is a prefix: `show route` takes an address (the route of a prefix: show ip route {})", w, w);
        else
            error = fmt::format("'{}' is not an IPv4 or IPv6 address", w);
        return std::nullopt;
    case value_kind::address_or_prefix:
        if (rib::parse_prefix(w))
            return std::string(w);
        error = fmt::format("'{}' is not an address or a prefix (A.B.C.D[/M], X:X::X:X[/M])", w);
        return std::nullopt;
    case value_kind::table_id:
        if (auto n = parse_number(w); n && *n <= UINT32_MAX)
            return std::string(w);
        error = fmt::format("table id '{}' is not a number from 0 to 4294967295", w);
        return std::nullopt;
    case value_kind::count:
        if (auto n = parse_number(w); n && *n >= 1 && *n <= 65535)
            return std::string(w);
        error = fmt::format("count '{}' is not a number from 1 to 65535", w);
        return std::nullopt;
    case value_kind::seconds:
        if (auto n = parse_number(w); n && *n >= 1 && *n <= 86400)
            return std::string(w);
        error = fmt::format("timeout '{}' is not a number of seconds from 1 to 86400", w);
        return std::nullopt;
    case value_kind::level: {
        std::vector<std::string> all(levels.begin(), levels.end());
        const auto m = matching(w, all);
        if (m.size() == 1 || std::find(m.begin(), m.end(), w) != m.end())
            return std::string(m.size() == 1 ? m[0] : w);
        const std::string near = did_you_mean(w, all);
        error = fmt::format("log level '{}' is not one of {}{}", w, fmt::join(levels, ", "),
                            near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near));
        return std::nullopt;
    }
    }
    error = fmt::format("unexpected '{}'", w);
    return std::nullopt;
}

// The params of `s` that may still come (unused, no other of their group used).
std::vector<size_t> open_params(const state& s) {
    std::vector<size_t> out;
    const auto& ps = s.cmd->params;
    for (size_t i = 0; i < ps.size(); ++i) {
        if (s.used[i])
            continue;
        bool excluded = false;
        for (size_t j = 0; j < ps.size(); ++j)
            excluded |= s.used[j] && ps[i].group != 0 && ps[j].group == ps[i].group;
        if (!excluded)
            out.push_back(i);
    }
    return out;
}

void enter(state& s, std::string path) {
    s.path = std::move(path);
    s.cmd = command_at(s.path);
    if (s.cmd) {
        s.used.assign(s.cmd->params.size(), false);
        s.inv.cmd = s.cmd;
    }
}

// The states one word leads to from `s`; empty with `error` when none.
std::vector<state> step(const state& s, const std::string& word, std::string& error) {
    std::vector<state> out;
    if (s.pending >= 0) {
        const param& p = s.cmd->params[static_cast<size_t>(s.pending)];
        auto v = check_value(p, word, error);
        if (!v)
            return out;
        state n = s;
        n.inv.values[std::string(p.key())] = std::move(*v);
        n.pending = -1;
        n.choices.emplace_back();
        out.push_back(std::move(n));
        return out;
    }
    if (!s.cmd) {
        const auto keywords = next_keywords(s.path);
        // `s` was `show` before `set` existed, and is the word typed most: it stays `show`.
        const auto m = s.path.empty() && word == "s" ? std::vector<std::string>{"show"} : matching(word, keywords);
        const bool exact = std::find(m.begin(), m.end(), word) != m.end();
        for (const auto& k : m) {
            state n = s;
            enter(n, s.path.empty() ? k : s.path + " " + k);
            n.choices.push_back(k);
            if (exact && k != word)
                ++n.inexact;
            out.push_back(std::move(n));
        }
        if (out.empty()) {
            const std::string near = did_you_mean(word, keywords);
            error = near.empty() ? fmt::format("unknown command '{}'{}; one of: {}", word,
                                               s.path.empty() ? "" : " after '" + s.path + "'", fmt::join(keywords, ", "))
                                 : fmt::format("unknown command '{}' (did you mean '{}'?)", word, near);
        }
        return out;
    }
    const auto open = open_params(s);
    std::vector<std::string> keywords;
    for (size_t i : open)
        if (!s.cmd->params[i].positional())
            keywords.emplace_back(s.cmd->params[i].keyword);
    const auto m = matching(word, keywords);
    const bool exact = std::find(m.begin(), m.end(), word) != m.end();
    for (const auto& k : m) {
        for (size_t i : open) {
            const param& p = s.cmd->params[i];
            if (p.keyword != k)
                continue;
            state n = s;
            n.used[i] = true;
            n.choices.push_back(k);
            if (exact && k != word)
                ++n.inexact;
            if (p.value == value_kind::none)
                n.inv.values[std::string(p.key())] = "";
            else
                n.pending = static_cast<int>(i);
            out.push_back(std::move(n));
        }
    }
    std::string value_error;
    for (size_t i : open) {
        const param& p = s.cmd->params[i];
        if (!p.positional())
            continue;
        auto v = check_value(p, word, value_error);
        if (!v)
            continue;
        state n = s;
        n.used[i] = true;
        n.inv.values[std::string(p.metavar)] = std::move(*v);
        n.choices.emplace_back();
        out.push_back(std::move(n));
    }
    if (out.empty()) {
        const std::string near = did_you_mean(word, keywords);
        if (!value_error.empty() && (near.empty() || word.find_first_of(".:/0123456789") != std::string::npos))
            error = value_error;
        else if (!near.empty())
            error = fmt::format("unexpected '{}' (did you mean '{}'?)", word, near);
        else if (keywords.empty())
            error = fmt::format("unexpected '{}': {}", word, synopsis(*s.cmd));
        else
            error = fmt::format("unexpected '{}'; {} takes: {}", word, s.cmd->path, synopsis(*s.cmd));
    }
    return out;
}

// The readings of `words`, and the error of the first word no reading took.
std::vector<state> walk(std::span<const std::string> words, std::string& error) {
    std::vector<state> states(1);
    for (const auto& w : words) {
        std::vector<state> next;
        // The error of the best-ranked reading (`show route 10.0.1.0/24`: route's, not routes').
        std::string first_error;
        unsigned error_rank = UINT_MAX;
        for (const auto& s : states) {
            std::string e;
            auto n = step(s, w, e);
            if (n.empty() && s.inexact < error_rank) {
                first_error = e;
                error_rank = s.inexact;
            }
            for (auto& x : n)
                next.push_back(std::move(x));
        }
        if (next.empty()) {
            error = first_error;
            return next;
        }
        states = std::move(next);
    }
    return states;
}

// Why `s` is not a whole command.
std::string incomplete(const state& s) {
    if (!s.cmd) {
        const auto next = next_keywords(s.path);
        return fmt::format("{} what? {}", s.path.empty() ? "missing command:" : s.path, fmt::join(next, ", "));
    }
    if (s.pending >= 0) {
        const param& p = s.cmd->params[static_cast<size_t>(s.pending)];
        return fmt::format("{} needs a value: {} {} ({})", p.keyword, p.keyword, p.metavar, p.help);
    }
    for (size_t i = 0; i < s.cmd->params.size(); ++i) {
        const param& p = s.cmd->params[i];
        if (p.required && !s.used[i])
            return fmt::format("{} needs {}: {}", s.cmd->path, p.positional() ? p.metavar : p.keyword, synopsis(*s.cmd));
    }
    return {};
}

bool complete_state(const state& s) { return s.cmd && incomplete(s).empty(); }

std::string_view value_help(value_kind k) {
    switch (k) {
    case value_kind::none: return "";
    case value_kind::vrf: return "a VRF name";
    case value_kind::vrf_or_all: return "a VRF name, or all";
    case value_kind::port: return "an srv6d port name";
    case value_kind::sid: return "a local SID";
    case value_kind::address: return "an IPv4 or IPv6 address";
    case value_kind::address_or_prefix: return "A.B.C.D[/M] or X:X::X:X[/M]";
    case value_kind::table_id: return "a kernel table id";
    case value_kind::count: return "a number from 1 to 65535";
    case value_kind::seconds: return "seconds, 1 to 86400";
    case value_kind::file: return "a file";
    case value_kind::level: return "error, warn, info or debug";
    }
    return "";
}

void add_values(const param& p, std::string_view partial, const value_source& values, std::vector<candidate>& out) {
    out.push_back({std::string(p.metavar), fmt::format("{} ({})", p.help, value_help(p.value)), true});
    std::vector<std::string> fixed;
    if (p.value == value_kind::level)
        fixed.assign(levels.begin(), levels.end());
    if (p.value == value_kind::vrf_or_all)
        fixed.emplace_back("all");
    for (auto& v : fixed)
        if (v.starts_with(partial))
            out.push_back({v, std::string(p.help)});
    if (values)
        for (auto& v : values(p.value, partial))
            if (v.starts_with(partial))
                out.push_back({v, std::string(p.help)});
}

}  // namespace

const std::string* invocation::get(std::string_view key) const {
    const auto it = values.find(key);
    return it == values.end() ? nullptr : &it->second;
}

namespace {

// The synopsis with keywords and values each passed through their own format (plain, roff).
template <typename K, typename V>
std::string synopsis_as(const command& c, K keyword, V value, std::string_view bar, std::string_view open,
                        std::string_view close) {
    std::string out;
    for (const auto& w : split(c.path))
        out += (out.empty() ? "" : " ") + keyword(w);
    const auto& ps = c.params;
    auto one = [&](const param& p) {
        if (p.positional())
            return value(p.metavar);
        return p.value == value_kind::none ? keyword(p.keyword) : keyword(p.keyword) + " " + value(p.metavar);
    };
    for (size_t i = 0; i < ps.size(); ++i) {
        std::string text = one(ps[i]);
        bool required = ps[i].required;
        if (ps[i].group != 0) {
            bool seen_before = false;
            for (size_t j = 0; j < i; ++j)
                seen_before |= ps[j].group == ps[i].group;
            if (seen_before)
                continue;
            for (size_t j = i + 1; j < ps.size(); ++j)
                if (ps[j].group == ps[i].group) {
                    text += std::string(bar) + one(ps[j]);
                    required = required && ps[j].required;
                }
        }
        out += required ? " " + text : " " + std::string(open) + text + std::string(close);
    }
    return out;
}

std::string roff_escape(std::string_view s) {
    std::string out;
    for (char ch : s)
        out += ch == '-' ? std::string("\\-") : ch == '\\' ? std::string("\\e") : std::string(1, ch);
    return out;
}

}  // namespace

std::string synopsis(const command& c) {
    auto plain = [](std::string_view w) { return std::string(w); };
    return synopsis_as(c, plain, plain, " | ", "[", "]");
}

std::string roff_synopsis(const command& c) {
    auto bold = [](std::string_view w) { return "\\fB" + roff_escape(w) + "\\fR"; };
    auto italic = [](std::string_view w) { return "\\fI" + roff_escape(w) + "\\fR"; };
    return synopsis_as(c, bold, italic, " | ", "[", "]");
}

parse_result parse(std::span<const std::string> words) {
    parse_result r;
    auto states = walk(words, r.error);
    if (states.empty())
        return r;
    // The complete readings of the best rank: the fewest keywords that lost to an exact one.
    std::vector<const state*> done;
    unsigned best = UINT_MAX;
    for (const auto& s : states)
        if (complete_state(s))
            best = std::min(best, s.inexact);
    for (const auto& s : states)
        if (complete_state(s) && s.inexact == best)
            done.push_back(&s);
    if (done.empty()) {
        r.error = incomplete(states.front());
        return r;
    }
    if (done.size() > 1) {
        // The first word the readings took differently is the ambiguous one.
        for (size_t i = 0; i < words.size(); ++i) {
            std::vector<std::string> which;
            for (const state* s : done)
                if (std::find(which.begin(), which.end(), s->choices[i]) == which.end())
                    which.push_back(s->choices[i]);
            if (which.size() > 1) {
                r.error = fmt::format("ambiguous command '{}': {}", words[i], fmt::join(which, ", "));
                return r;
            }
        }
        r.error = fmt::format("ambiguous command: {}", words.empty() ? "" : words.back());
        return r;
    }
    r.inv = done.front()->inv;
    return r;
}

std::vector<candidate> complete(std::span<const std::string> words, std::string_view partial, const value_source& values) {
    std::string ignored;
    const auto states = walk(words, ignored);
    // The best-ranked readings only: `show ip ?` is ip's, not also ipv6's.
    unsigned best = UINT_MAX;
    for (const auto& s : states)
        best = std::min(best, s.inexact);
    std::vector<candidate> out;
    for (const auto& s : states) {
        if (s.inexact != best)
            continue;
        if (s.pending >= 0) {
            add_values(s.cmd->params[static_cast<size_t>(s.pending)], partial, values, out);
            continue;
        }
        if (!s.cmd) {
            for (const auto& k : next_keywords(s.path)) {
                if (!k.starts_with(partial) && !(s.path.empty() && partial == "s" && k == "show"))
                    continue;
                const std::string full = s.path.empty() ? k : s.path + " " + k;
                const command* c = command_at(full);
                out.push_back({k, std::string(c ? c->help : prefix_help(full))});
            }
            continue;
        }
        for (size_t i : open_params(s)) {
            const param& p = s.cmd->params[i];
            if (p.positional())
                add_values(p, partial, values, out);
            else if (p.keyword.starts_with(partial))
                out.push_back({std::string(p.keyword), std::string(p.help)});
        }
        if (complete_state(s) && partial.empty())
            out.push_back({"<cr>", "run it", true});
    }
    std::stable_sort(out.begin(), out.end(), [](const candidate& a, const candidate& b) {
        return std::tie(a.placeholder, a.word) < std::tie(b.placeholder, b.word);
    });
    out.erase(std::unique(out.begin(), out.end(), [](const candidate& a, const candidate& b) { return a.word == b.word; }),
              out.end());
    return out;
}

std::string format_candidates(const std::vector<candidate>& c) {
    size_t width = 0;
    for (const auto& x : c)
        width = std::max(width, x.word.size());
    std::string out;
    for (const auto& x : c)
        out += fmt::format("  {:<{}}  {}\n", x.word, width, x.help);
    return out;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
    // Optimal string alignment distance: a swap of two neighbours costs 1, as a typo does.
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
        for (size_t i = 0; i <= a.size(); ++i)
            d[i][0] = i;
        for (size_t j = 0; j <= b.size(); ++j)
            d[0][j] = j;
        for (size_t i = 1; i <= a.size(); ++i)
            for (size_t j = 1; j <= b.size(); ++j) {
                d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                    d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        return d[a.size()][b.size()];
    };
    std::string best;
    size_t best_d = SIZE_MAX;
    for (const auto& c : candidates) {
        const size_t d = distance(word, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    // One edit in a short word, two in a longer one; never a rewrite of most of it.
    const size_t limit = word.size() <= 4 ? 1 : 2;
    return best_d <= limit && best_d < word.size() ? best : std::string();
}

}  // namespace mgmt::cli
