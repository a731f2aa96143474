#include "fib/addr.hh"
#include "mgmt/names.hh"
#include "mgmt/render.hh"

namespace mgmt {

pb::SidTable render_sids(const fib::rib& rib, const vrf::registry& reg, const vrf::sid_tracker* tracker) {
    pb::SidTable out;
    vrf::sid_refusal_counts now{};
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
        // Bound now, against the registry as it is: the answer can never lag behind a change.
        const vrf::sid_binding b = vrf::bind_sid(e.sid, reg);
        s->set_state(b.active ? "active" : "refused");
        if (b.vrf) {
            s->set_vrf_id(*b.vrf);
            if (const auto* v = reg.find(*b.vrf))
                s->set_vrf(printable(v->name));
        }
        if (!b.active) {
            s->set_reason(printable(b.reason));
            s->set_refusal(std::string(vrf::name(b.why)));
            ++now[static_cast<size_t>(b.why)];
        }
    }
    for (size_t i = 0; i < vrf::sid_refusal_count; ++i) {
        const auto why = static_cast<vrf::sid_refusal>(i);
        if (why == vrf::sid_refusal::none)
            continue;
        auto* c = out.add_refusals();
        c->set_name(std::string(vrf::name(why)));
        c->set_now(now[i]);
        c->set_total(tracker ? tracker->refusals()[i] : 0);
    }
    return out;
}

}  // namespace mgmt
