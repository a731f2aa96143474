#include "forward/control/l2vpn.hh"

#include <fmt/format.h>

#include "fib/control/encap_build.hh"
#include "rib/model.hh"

namespace fwd {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    while (true) {
        const size_t at = s.find(sep);
        out.push_back(s.substr(0, at));
        if (at == std::string_view::npos)
            return out;
        s.remove_prefix(at + 1);
    }
}

std::vector<std::string_view> vpws_words(std::string_view s) {
    std::vector<std::string_view> out;
    for (std::string_view w : split(s, ' '))
        for (std::string_view t : split(w, '\t'))
            if (!t.empty())
                out.push_back(t);
    return out;
}

}  // namespace

std::optional<vpws_spec> parse_vpws(std::string_view line, std::string& err) {
    const auto w = vpws_words(line);
    if (w.size() < 3) {
        err = "a vpws is 'NAME port=PORT segs=SID[,SID...] [mode=l2encap|l2encap.red] [source=ADDR]'";
        return std::nullopt;
    }
    vpws_spec v;
    v.name = w[0];
    for (size_t i = 1; i < w.size(); ++i) {
        const auto eq = w[i].find('=');
        const std::string_view k = w[i].substr(0, eq), val = eq == std::string_view::npos ? "" : w[i].substr(eq + 1);
        if (eq == std::string_view::npos || val.empty()) {
            err = fmt::format("'{}' is not KEY=VALUE", w[i]);
            return std::nullopt;
        }
        if (k == "port") {
            v.port = val;
        } else if (k == "segs") {
            for (std::string_view s : split(val, ',')) {
                const auto a = rib::parse_ip6(s);
                if (!a) {
                    err = fmt::format("segs: '{}' is not an IPv6 address", s);
                    return std::nullopt;
                }
                v.segments.push_back(*a);
            }
            if (v.segments.size() > fib::max_srh_segments) {
                err = fmt::format("segs: {} SIDs, at most {}", v.segments.size(), fib::max_srh_segments);
                return std::nullopt;
            }
        } else if (k == "mode") {
            if (val != "l2encap" && val != "l2encap.red") {
                err = fmt::format("mode '{}' is not l2encap or l2encap.red", val);
                return std::nullopt;
            }
            v.reduced = val == "l2encap.red";
        } else if (k == "source") {
            const auto a = rib::parse_ip6(val);
            if (!a) {
                err = fmt::format("source '{}' is not an IPv6 address", val);
                return std::nullopt;
            }
            if (const auto why = vrf::check_encap_source(*a)) {
                err = fmt::format("source {}: {}", val, *why);
                return std::nullopt;
            }
            v.source = *a;
        } else {
            err = fmt::format("unknown vpws option '{}' (port, segs, mode, source)", k);
            return std::nullopt;
        }
    }
    if (v.port.empty() || v.segments.empty()) {
        err = "a vpws needs port=PORT and segs=SID[,SID...]";
        return std::nullopt;
    }
    return v;
}

bool check_vpws(const std::vector<vpws_spec>& services, const std::vector<port_spec>& ports, std::string& err) {
    for (size_t i = 0; i < services.size(); ++i) {
        const vpws_spec& s = services[i];
        for (size_t j = 0; j < i; ++j) {
            if (services[j].name == s.name) {
                err = fmt::format("vpws {} is configured twice", s.name);
                return false;
            }
            if (services[j].port == s.port) {
                err = fmt::format("vpws {}: port {} is the circuit of vpws {} already", s.name, s.port, services[j].name);
                return false;
            }
        }
        const port_spec* port = nullptr;
        for (const auto& p : ports)
            if (p.name == s.port)
                port = &p;
        if (port == nullptr) {
            err = fmt::format("vpws {}: port '{}' is no configured port or sub-port", s.name, s.port);
            return false;
        }
        for (const auto& p : ports)
            if (p.parent == port->name) {
                err = fmt::format("vpws {}: port {} has sub-ports ({}): a port-based circuit takes every frame; "
                                  "make the service's VLAN a sub-port and its circuit",
                                  s.name, s.port, p.name);
                return false;
            }
    }
    return true;
}

std::vector<vpws_state> build_vpws(const std::vector<vpws_spec>& services, const vrf::encap_source_resolver& src) {
    std::vector<vpws_state> out;
    for (const auto& s : services) {
        vpws_state st;
        st.spec = s;
        rib::seg6_encap e;
        e.mode = s.reduced ? rib::encap_mode::l2encap_red : rib::encap_mode::l2encap;
        e.segments = s.segments;
        e.source = s.source;  // like a route's own source: it wins over the global one
        st.source = src.resolve(e);
        if (!st.source.ok()) {
            st.reason = fmt::format("no encapsulation source: {}", vrf::to_string(st.source));
        } else {
            const fib::encap_build b = fib::build_encap_template(e.mode, e.segments, *st.source.addr, fib::ipproto::ethernet);
            if (b.ok()) {
                st.active = true;
                st.tmpl = b.tmpl;
            } else {
                st.reason = std::string(fib::name(b.refusal));
            }
        }
        out.push_back(std::move(st));
    }
    return out;
}

}  // namespace fwd
