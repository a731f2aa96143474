#include "vrf/encap_source.hh"

#include <vector>

#include <fmt/format.h>

#include "util/log.hh"

namespace vrf {
namespace {

constexpr std::string_view route_text = "route's own source (SEG6_IPTUNNEL_SRC / SONiC ENCAP_SRC_ADDR)";
// The kernel cannot say who wrote its tunsrc: zebra (FRR's `encapsulation source-address`) or a person.
constexpr std::string_view kernel_text = "kernel tunsrc, from FRR's source-address or ip sr tunsrc set";
constexpr std::string_view config_text = "srv6d config encap-source";

}  // namespace

std::string_view to_string(encap_origin o) {
    switch (o) {
    case encap_origin::none: return "none";
    case encap_origin::route: return "route";
    case encap_origin::kernel_tunsrc: return "kernel-tunsrc";
    case encap_origin::config: return "config";
    }
    return "?";
}

std::string to_string(const encap_src& s) {
    if (!s.addr)
        return fmt::format("none ({})", s.detail);
    return fmt::format("{} ({})", rib::to_string(*s.addr), s.detail);
}

std::optional<std::string> check_encap_source(const rib::ip6_addr& a) {
    const auto& b = a.bytes;
    const std::string txt = rib::to_string(a);
    if (a.is_zero())
        return fmt::format("{} is the unspecified address", txt);
    if (b[0] == 0xff)
        return fmt::format("{} is a multicast address", txt);
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
        return fmt::format("{} is link-local: not routable back to this node", txt);
    rib::ip6_addr loopback;
    loopback.bytes[15] = 1;
    if (a == loopback)
        return fmt::format("{} is the loopback address", txt);
    bool mapped = b[10] == 0xff && b[11] == 0xff;
    for (size_t i = 0; i < 10; ++i)
        mapped = mapped && b[i] == 0;
    if (mapped)
        return fmt::format("{} is an IPv4-mapped address", txt);
    return std::nullopt;
}

bool encap_source_resolver::set_kernel_tunsrc(const tunsrc_reading& r) {
    if (r.ok) {
        _kernel = r.addr;
        _kernel_known = true;
        _kernel_error.clear();
    } else {
        _kernel_error = r.error;
    }
    return recompute();
}

bool encap_source_resolver::set_configured(std::optional<rib::ip6_addr> a) {
    _configured = a;
    return recompute();
}

encap_src encap_source_resolver::resolve(const rib::seg6_encap& e) const {
    if (e.source && !e.source->is_zero())
        return encap_src{e.source, encap_origin::route, std::string(route_text)};
    return _global;
}

bool encap_source_resolver::recompute() {
    encap_src g;
    std::vector<std::string> why;  // for `none`: what each tier said
    if (_kernel_known && _kernel) {
        g = {_kernel, encap_origin::kernel_tunsrc, std::string(kernel_text)};
        if (!_kernel_error.empty())
            g.detail += fmt::format("; last re-read failed: {}", _kernel_error);
    } else {
        why.push_back(_kernel_known ? "kernel tunsrc is unset (::)"
                      : _kernel_error.empty() ? "kernel tunsrc not read yet"
                                              : fmt::format("kernel tunsrc unreadable: {}", _kernel_error));
        if (_configured && !check_encap_source(*_configured)) {
            g = {_configured, encap_origin::config, std::string(config_text)};
        } else {
            why.push_back(_configured ? fmt::format("encap-source rejected: {}", *check_encap_source(*_configured))
                                      : "no encap-source configured");
        }
    }
    if (!g.addr) {
        g.origin = encap_origin::none;
        g.detail.clear();
        for (const auto& w : why)
            g.detail += (g.detail.empty() ? "" : ", ") + w;
    }

    const bool moved = g.addr != _global.addr || g.origin != _global.origin;
    if (moved) {
        ++_version;
        if (g.origin == encap_origin::none)
            util::log(util::level::warn, "encap-source: none ({}): encapsulating routes will be refused", g.detail);
        else
            util::log(util::level::info, "encap-source: {}", to_string(g));
    }
    _global = std::move(g);
    return moved;
}

}  // namespace vrf
