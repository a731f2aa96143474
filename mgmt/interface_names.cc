#include "mgmt/interface_names.hh"

#include <map>

#include "mgmt/names.hh"

namespace mgmt {
namespace {

// One name lookup per ifindex per answer (a table of many routes over few interfaces).
class namer {
public:
    explicit namer(const ifname_reader& r) : _read(r) {}
    std::string operator()(uint32_t ifindex) {
        if (ifindex == 0 || !_read)
            return {};
        auto [it, fresh] = _cache.try_emplace(ifindex);
        if (fresh)
            it->second = printable(_read(ifindex));
        return it->second;
    }

private:
    const ifname_reader& _read;
    std::map<uint32_t, std::string> _cache;
};

void name_seg6local(pb::Seg6Local& l, namer& n) {
    if (l.has_oif())
        if (std::string s = n(l.oif()); !s.empty())
            l.set_oif_name(std::move(s));
}

void name_nexthop(pb::Nexthop& nh, namer& n) {
    if (std::string s = n(nh.ifindex()); !s.empty())
        nh.set_ifname(std::move(s));
    if (nh.has_seg6local())
        name_seg6local(*nh.mutable_seg6local(), n);
}

}  // namespace

void name_interfaces(pb::RouteTables& t, const ifname_reader& name) {
    namer n(name);
    for (auto& table : *t.mutable_tables())
        for (auto& route : *table.mutable_routes())
            for (auto& nh : *route.mutable_nexthops())
                name_nexthop(nh, n);
}

void name_interfaces(pb::NexthopTable& t, const ifname_reader& name) {
    namer n(name);
    for (auto& o : *t.mutable_nexthops())
        if (o.has_path())
            name_nexthop(*o.mutable_path(), n);
    for (auto& o : *t.mutable_pic_contexts())
        if (o.has_path())
            name_nexthop(*o.mutable_path(), n);
}

void name_interfaces(pb::SidTable& t, const ifname_reader& name) {
    namer n(name);
    for (auto& s : *t.mutable_sids()) {
        if (std::string i = n(s.ifindex()); !i.empty())
            s.set_ifname(std::move(i));
        if (s.has_seg6local())
            name_seg6local(*s.mutable_seg6local(), n);
    }
}

}  // namespace mgmt
