#include "mgmt/ctl_args.hh"

#include <array>
#include <charconv>
#include <sstream>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

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
        ("help,h", po::bool_switch(args ? &args->help : nullptr), "print this help");
    return o;
}

// vtysh-style matching: an exact word, or a prefix of exactly one candidate.
template <size_t N>
std::optional<std::string_view> match(std::string_view word, const std::array<std::string_view, N>& candidates,
                                      std::string& error) {
    std::optional<std::string_view> found;
    size_t prefixes = 0;
    for (auto c : candidates) {
        if (c == word)
            return c;
        if (!word.empty() && c.starts_with(word)) {
            found = c;
            ++prefixes;
        }
    }
    if (prefixes == 1)
        return found;
    if (prefixes == 0) {
        error = fmt::format("unknown command '{}'; one of: {}", word, fmt::join(candidates, ", "));
    } else {
        std::vector<std::string_view> which;
        for (auto c : candidates)
            if (c.starts_with(word))
                which.push_back(c);
        error = fmt::format("ambiguous command '{}': {}", word, fmt::join(which, ", "));
    }
    return std::nullopt;
}

std::optional<uint32_t> parse_u32(std::string_view s) {
    uint32_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

// `trace [port P] [count N] [timeout S]`, `capture port P [rx|tx|drop] [count N] file F [timeout S]`.
bool parse_trace(const std::vector<std::string>& words, bool capture, pb::Request& req,
                 std::optional<ctl_session>& session, std::string& error) {
    ctl_session s;
    s.capture = capture;
    s.count = capture ? 100 : 10;
    std::string mode = capture ? "rx" : "trace";
    pb::TraceStart& t = *req.mutable_trace_start();
    constexpr std::array<std::string_view, 7> trace_words{"port", "count", "timeout", "file", "rx", "tx", "drop"};
    for (size_t i = 1; i < words.size(); ++i) {
        const auto w = match(words[i], trace_words, error);
        if (!w)
            return false;
        if (*w == "rx" || *w == "tx" || *w == "drop") {
            if (!capture) {
                error = fmt::format("'{}' is for capture; trace follows every packet", *w);
                return false;
            }
            mode = *w;
            continue;
        }
        if (*w == "file" && !capture) {
            error = "trace prints; capture writes a file";
            return false;
        }
        if (i + 1 >= words.size()) {
            error = fmt::format("{} needs a value", *w);
            return false;
        }
        const std::string& v = words[++i];
        if (*w == "port") {
            t.set_port(v);
        } else if (*w == "file") {
            s.file = v;
        } else {
            const auto n = parse_u32(v);
            if (!n || *n == 0 || (*w == "count" && *n > 65535) || (*w == "timeout" && *n > 86400)) {
                error = *w == "count" ? fmt::format("count '{}' is not a number from 1 to 65535", v)
                                      : fmt::format("timeout '{}' is not a number of seconds from 1 to 86400", v);
                return false;
            }
            (*w == "count" ? s.count : s.timeout_s) = *n;
        }
    }
    if (capture && !t.has_port()) {
        error = "capture needs a port: capture port P [rx|tx|drop] count N file F";
        return false;
    }
    if (capture && s.file.empty()) {
        error = "capture needs a file: capture port P [rx|tx|drop] count N file F";
        return false;
    }
    t.set_mode(mode);
    t.set_count(s.count);
    session = s;
    return true;
}

// Fills `req` from the command words; false with `error` set when they do not form a command.
bool parse_words(const std::vector<std::string>& words, pb::Request& req, std::optional<ctl_session>& session,
                 std::string& error) {
    if (words.empty()) {
        error = "missing command";
        return false;
    }
    constexpr std::array<std::string_view, 5> verbs{"show", "clear", "set", "trace", "capture"};
    // `s` meant `show` before `set` existed, and is the word typed most: it stays `show`.
    const auto verb = words[0] == "s" ? std::optional<std::string_view>("show") : match(words[0], verbs, error);
    if (!verb)
        return false;
    if (*verb == "trace" || *verb == "capture")
        return parse_trace(words, *verb == "capture", req, session, error);
    if (*verb == "set") {
        constexpr std::array<std::string_view, 1> what{"log-level"};
        constexpr std::array<std::string_view, 4> levels{"error", "warn", "info", "debug"};
        if (words.size() < 2) {
            error = "set what? log-level";
            return false;
        }
        if (!match(words[1], what, error))
            return false;
        if (words.size() < 3) {
            error = "log-level needs a level: error, warn, info or debug";
            return false;
        }
        const auto level = match(words[2], levels, error);
        if (!level)
            return false;
        if (words.size() > 3) {
            error = fmt::format("unexpected '{}'", words[3]);
            return false;
        }
        req.mutable_set_log_level()->set_level(std::string(*level));
        return true;
    }
    if (*verb == "clear") {
        constexpr std::array<std::string_view, 1> what{"counters"};
        if (words.size() < 2) {
            error = "clear what? counters";
            return false;
        }
        if (!match(words[1], what, error))
            return false;
        if (words.size() > 2) {
            error = fmt::format("unexpected '{}'", words[2]);
            return false;
        }
        req.mutable_clear_counters();
        return true;
    }
    if (words.size() < 2) {
        error = "show what? fpm, route, routes, nexthops, sids, vrfs, encap-source, counters, neighbors, memory or l2vpn";
        return false;
    }
    // `show route ADDR` beside `show routes [...]`: a prefix of both ("sh ro") is `routes`
    // unless an address follows, so the abbreviations people already type keep working.
    const bool route_prefix = !words[1].empty() && std::string_view("route").starts_with(words[1]);
    if (route_prefix && words.size() > 2 && words[2].find_first_of(".:") != std::string::npos) {
        auto* r = req.mutable_show_route();
        r->set_address(words[2]);
        size_t used = 3;
        if (words.size() > 3) {
            constexpr std::array<std::string_view, 1> filters{"vrf"};
            if (!match(words[3], filters, error))
                return false;
            if (words.size() < 5) {
                error = "vrf needs a VRF name";
                return false;
            }
            r->set_vrf(words[4]);
            used = 5;
        }
        if (words.size() > used) {
            error = fmt::format("unexpected '{}'", words[used]);
            return false;
        }
        return true;
    }
    constexpr std::array<std::string_view, 10> subjects{"fpm",      "routes",    "nexthops", "sids",  "vrfs",
                                                        "encap-source", "counters", "neighbors", "memory", "l2vpn"};
    const auto subject = match(words[1], subjects, error);
    if (!subject)
        return false;
    size_t used = 2;
    if (*subject == "fpm") {
        req.mutable_show_fpm();
    } else if (*subject == "nexthops") {
        req.mutable_show_nexthops();
    } else if (*subject == "sids") {
        req.mutable_show_sids();
    } else if (*subject == "vrfs") {
        req.mutable_show_vrfs();
    } else if (*subject == "encap-source") {
        req.mutable_show_encap_source();
    } else if (*subject == "counters") {
        req.mutable_show_counters();
    } else if (*subject == "neighbors") {
        req.mutable_show_neighbors();
    } else if (*subject == "memory") {
        req.mutable_show_memory();
    } else if (*subject == "l2vpn") {
        req.mutable_show_l2vpn();
    } else {
        auto* routes = req.mutable_show_routes();
        constexpr std::array<std::string_view, 2> filters{"table", "vrf"};
        if (words.size() > 2) {
            const auto filter = match(words[2], filters, error);
            if (!filter)
                return false;
            if (words.size() < 4) {
                error = *filter == "table" ? "table needs a table id" : "vrf needs a VRF name";
                return false;
            }
            if (*filter == "vrf") {
                routes->set_vrf(words[3]);
            } else {
                const auto id = parse_u32(words[3]);
                if (!id) {
                    error = fmt::format("table id '{}' is not a number from 0 to 4294967295", words[3]);
                    return false;
                }
                routes->set_table(*id);
            }
            used = 4;
        }
    }
    if (words.size() > used) {
        error = fmt::format("unexpected '{}'", words[used]);
        return false;
    }
    return true;
}

}  // namespace

std::string ctl_usage() {
    std::ostringstream os;
    os << "usage: srv6ctl [options] show fpm\n"
          "       srv6ctl [options] show routes [table N | vrf NAME]\n"
          "       srv6ctl [options] show route ADDR [vrf NAME]\n"
          "       srv6ctl [options] show nexthops\n"
          "       srv6ctl [options] show sids\n"
          "       srv6ctl [options] show vrfs\n"
          "       srv6ctl [options] show encap-source\n"
          "       srv6ctl [options] show counters\n"
          "       srv6ctl [options] show neighbors\n"
          "       srv6ctl [options] show l2vpn\n"
          "       srv6ctl [options] show memory\n"
          "       srv6ctl [options] clear counters\n"
          "       srv6ctl [options] set log-level error|warn|info|debug\n"
          "       srv6ctl [options] trace [port P] [count N] [timeout S]\n"
          "       srv6ctl [options] capture port P [rx|tx|drop] [count N] file F.pcap [timeout S]\n"
          "Options may also follow the command; words may be abbreviated (sh ro = show routes);\n"
          "a last word `json` is --json (show fpm json).\n\n"
       << visible_options(nullptr);
    return os.str();
}

ctl_parse_result parse_ctl_args(int argc, const char* const argv[]) {
    ctl_args args;
    std::vector<std::string> words;
    po::options_description all = visible_options(&args);
    all.add_options()("words", po::value<std::vector<std::string>>(&words));
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
    if (args.help) {
        result.args = std::move(args);
        return result;
    }
    if (args.socket.empty()) {
        result.error = "--socket needs a path";
        return result;
    }
    // vtysh habit: `show fpm json`. Only as the last word, where no argument can be "json".
    if (words.size() > 2 && words.back() == "json") {
        args.json = true;
        words.pop_back();
    }
    if (!parse_words(words, args.request, args.session, result.error))
        return result;
    result.args = std::move(args);
    return result;
}

}  // namespace mgmt
