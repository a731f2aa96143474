#include "mgmt/names.hh"
#include "mgmt/render.hh"

namespace mgmt {

pb::VrfTable render_vrfs(const vrf::registry& reg, const std::string& kernel) {
    pb::VrfTable out;
    for (const vrf::vrf_info* v : reg.vrfs()) {
        auto* o = out.add_vrfs();
        o->set_name(printable(v->name));  // kernel device names may hold any byte
        o->set_id(v->id);
        o->set_table(v->table);
        if (v->config_table)
            o->set_config_table(*v->config_table);
        if (v->kernel_table)
            o->set_kernel_table(*v->kernel_table);
        if (v->dev_ifindex)
            o->set_dev_ifindex(*v->dev_ifindex);
        o->set_source(vrf::to_string(v->sources));
        for (const auto& m : v->members) {
            auto* mo = o->add_members();
            mo->set_name(printable(m.name));
            mo->set_ifindex(m.ifindex);
            mo->set_source(vrf::to_string(m.sources));
        }
        o->set_state(std::string(vrf::to_string(v->state)));
        o->set_reason(printable(v->reason));
    }
    out.set_kernel(printable(kernel));
    return out;
}

}  // namespace mgmt
