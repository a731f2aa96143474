#include "mgmt/reply.hh"

namespace mgmt {

void join_part(pb::Response& answer, pb::Response&& part) {
    if (!part.error().empty()) {
        answer.Clear();
        answer.set_error(part.error());
        return;
    }
    if (!answer.error().empty())
        return;
    if (part.has_routes()) {
        auto* to = answer.mutable_routes()->mutable_tables();
        for (auto& t : *part.mutable_routes()->mutable_tables()) {
            if (!to->empty() && to->rbegin()->table() == t.table()) {
                auto* last = to->Mutable(to->size() - 1);
                if (t.has_vrf() && !last->has_vrf())
                    last->set_vrf(t.vrf());
                auto* routes = last->mutable_routes();
                routes->Reserve(routes->size() + t.routes_size());
                for (auto& r : *t.mutable_routes())
                    routes->Add(std::move(r));
                continue;
            }
            to->Add(std::move(t));
        }
        return;
    }
    part.clear_more();
    answer.MergeFrom(part);  // repeated fields of the other tables follow each other
}

pb::Response drain(reply r) {
    pb::Response out = std::move(r.first);
    out.clear_more();
    for (bool more = static_cast<bool>(r.next); more;) {
        pb::Response part;
        more = r.next(part);
        join_part(out, std::move(part));
    }
    return out;
}

}  // namespace mgmt
