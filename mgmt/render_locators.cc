#include <algorithm>
#include <map>

#include "rib/addr.hh"
#include "mgmt/render.hh"

namespace mgmt {

pb::LocatorTable render_locators(const pb::SidTable& sids) {
    std::map<rib::prefix, pb::Locator> by_prefix;
    pb::LocatorTable out;
    for (const auto& s : sids.sids()) {
        const auto& l = s.seg6local();
        uint32_t block = 0, node = 0;
        if (l.has_structure() && l.structure().block_len() + l.structure().node_len() > 0) {
            block = l.structure().block_len();
            node = l.structure().node_len();
        } else if (l.has_lcblock_bits() && l.has_lcnode_fn_bits()) {
            block = l.lcblock_bits();
            node = l.lcnode_fn_bits();
        }
        const auto p = rib::parse_prefix(s.prefix());
        if (!p || block + node == 0 || block + node > rib::prefix::max_len(p->af)) {
            out.set_unstructured(out.unstructured() + 1);
            continue;
        }
        const rib::prefix loc = rib::prefix::make(p->addr(), static_cast<uint8_t>(block + node));
        pb::Locator& o = by_prefix[loc];
        o.set_prefix(rib::to_string(loc));
        o.set_block_len(block);
        o.set_node_len(node);
        o.add_sids(s.prefix());
        const auto& bs = o.behaviors();
        if (std::find(bs.begin(), bs.end(), l.behavior()) == bs.end())
            o.add_behaviors(l.behavior());
        if (s.state() == "refused")
            o.set_refused(o.refused() + 1);
    }
    for (auto& [p, l] : by_prefix)
        *out.add_locators() = std::move(l);
    return out;
}

}  // namespace mgmt
