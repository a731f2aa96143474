#include <map>

#include "rib/addr.hh"
#include "mgmt/names.hh"
#include "mgmt/render.hh"

namespace mgmt {
namespace {

void render_object(const rib::store& rib, const rib::nexthop_object& o, pb::NexthopObject& out) {
    out.set_id(o.id);
    out.set_protocol(o.protocol);
    out.set_protocol_name(protocol_name(o.protocol));
    out.set_blackhole(o.blackhole);
    out.set_group(o.is_group());
    out.set_resilient(o.resilient);
    if (o.path)
        render_nexthop(*o.path, *out.mutable_path());
    for (const auto& m : o.group) {
        auto* pm = out.add_members();
        pm->set_id(m.id);
        pm->set_weight(m.weight);
        pm->set_known(rib.find_nexthop(m.id) != nullptr);
    }
}

}  // namespace

pb::NexthopTable render_nexthops(const rib::store& rib) {
    pb::NexthopTable out;
    for (const auto& [id, o] : rib.nexthops()) {
        auto* po = out.add_nexthops();
        render_object(rib, o, *po);
        po->set_used_by(static_cast<uint32_t>(rib.users_of(id).size()));
    }
    // PIC contexts have their own id space; routes name them by pic_id.
    std::map<uint32_t, uint32_t> pic_users;
    if (!rib.pic_contexts().empty())
        for (const auto& [key, r] : rib.routes())
            if (r.pic_id)
                ++pic_users[*r.pic_id];
    for (const auto& [id, o] : rib.pic_contexts()) {
        auto* po = out.add_pic_contexts();
        render_object(rib, o, *po);
        const auto it = pic_users.find(id);
        po->set_used_by(it == pic_users.end() ? 0 : it->second);
    }
    for (const auto& [name, segments] : rib.sidlists()) {
        auto* s = out.add_sidlists();
        s->set_name(printable(name));
        for (const auto& seg : segments)
            s->add_segments(rib::to_string(seg));
    }
    return out;
}

}  // namespace mgmt
