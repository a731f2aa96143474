#include "rib/addr.hh"
#include "mgmt/names.hh"
#include "mgmt/render.hh"

namespace mgmt {

pb::EncapSource render_encap_source(const vrf::encap_source_resolver& res, std::optional<rib::ip6_addr> configured,
                                    const vrf::tunsrc_poller* poller) {
    pb::EncapSource out;
    const auto& g = res.global();
    if (g.addr)
        out.set_address(rib::to_string(*g.addr));
    out.set_origin(std::string(vrf::to_string(g.origin)));
    out.set_detail(printable(g.detail));
    out.set_text(printable(vrf::to_string(g)));
    out.set_version(res.version());
    if (configured)
        out.set_configured(rib::to_string(*configured));
    if (poller == nullptr || poller->reads() == 0) {
        out.set_kernel_tunsrc("unknown");
    } else {
        const auto& r = poller->last();
        out.set_kernel_tunsrc(!r.ok ? "unknown" : r.addr ? rib::to_string(*r.addr) : "unset");
        out.set_kernel_error(printable(r.error));
        out.set_kernel_reads(poller->reads());
        out.set_kernel_read_failures(poller->failures());
    }
    if (poller)
        out.set_poll_interval_ms(static_cast<uint32_t>(poller->interval().count()));
    return out;
}

}  // namespace mgmt
