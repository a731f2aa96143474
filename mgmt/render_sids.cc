#include "fib/addr.hh"
#include "mgmt/names.hh"
#include "mgmt/render.hh"

namespace mgmt {

pb::SidTable render_sids(const fib::rib& rib) {
    pb::SidTable out;
    for (const auto& e : rib.local_sids()) {
        if (e.r == nullptr)
            continue;
        auto* s = out.add_sids();
        s->set_prefix(fib::to_string(e.r->key.dst));
        s->set_table(e.r->key.table);
        s->set_protocol(e.r->protocol);
        s->set_protocol_name(protocol_name(e.r->protocol));
        render_seg6local(e.sid, *s->mutable_seg6local());
        s->set_nh_id(e.nh_id);
        s->set_ifindex(e.ifindex);
    }
    return out;
}

}  // namespace mgmt
