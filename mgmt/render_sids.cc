#include <algorithm>
#include <tuple>
#include <vector>

#include "rib/addr.hh"
#include "mgmt/names.hh"
#include "mgmt/render.hh"

namespace mgmt {
namespace {

struct sid_row {
    const rib::route* r;
    rib::seg6local sid;
    uint32_t nh_id = 0;
    uint32_t ifindex = 0;
    rib::origin from = rib::origin::fpm;
    bool shadowed = false;  // a config SID hidden by zebra's SID at the same prefix
};

}  // namespace

pb::SidTable render_sids(const rib::store& rib, const vrf::registry& reg, const vrf::sid_tracker* tracker,
                         const sid_counter_reader& counters) {
    std::vector<sid_row> rows;
    for (const auto& e : rib.local_sids())
        if (e.r != nullptr)
            rows.push_back({e.r, e.sid, e.nh_id, e.ifindex, e.from, false});
    // Shadowed config SIDs are not in the route table (zebra's route is): listed so that the
    // operator sees why a configured SID does not do what the line says.
    for (const auto& [k, c] : rib.config_routes())
        if (c.shadowed && !c.r.nexthops.empty() && c.r.nexthops.front().local)
            rows.push_back({&c.r, *c.r.nexthops.front().local, 0, 0, rib::origin::config, true});
    std::stable_sort(rows.begin(), rows.end(), [](const sid_row& a, const sid_row& b) {
        const auto& x = a.r->key;
        const auto& y = b.r->key;
        return std::tie(x.dst.af, x.dst.bytes, x.dst.len, x.table, x.src) <
               std::tie(y.dst.af, y.dst.bytes, y.dst.len, y.table, y.src);
    });

    pb::SidTable out;
    vrf::sid_refusal_counts now{};
    for (const auto& e : rows) {
        auto* s = out.add_sids();
        s->set_prefix(rib::to_string(e.r->key.dst));
        s->set_table(e.r->key.table);
        s->set_protocol(e.r->protocol);
        s->set_protocol_name(protocol_name(e.r->protocol));
        render_seg6local(e.sid, *s->mutable_seg6local());
        s->set_nh_id(e.nh_id);
        s->set_ifindex(e.ifindex);
        s->set_origin(e.from == rib::origin::config ? "config" : "fpm");
        if (counters && !e.shadowed)
            if (const auto c = counters(e.r->key)) {
                s->set_packets(c->first);
                s->set_bytes(c->second);
            }
        // Bound now, against the registry as it is: the answer can never lag behind a change.
        const vrf::sid_binding b = vrf::bind_sid(e.sid, reg);
        if (b.vrf) {
            s->set_vrf_id(*b.vrf);
            if (const auto* v = reg.find(*b.vrf))
                s->set_vrf(printable(v->name));
        }
        if (e.shadowed) {
            s->set_state("shadowed");
            s->set_reason("zebra sent a route for this prefix; zebra's wins");
            continue;
        }
        s->set_state(b.active ? "active" : "refused");
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
