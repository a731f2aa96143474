#include "mgmt/route_stream.hh"

#include <algorithm>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

namespace mgmt {
namespace {

// Tables ascending, then vtysh's order within each (render_routes: display order).
bool listing_order(const rib::route_key& x, const rib::route_key& y) {
    return std::tie(x.table, x.dst.af, x.dst.bytes, x.dst.len, x.src) <
           std::tie(y.table, y.dst.af, y.dst.bytes, y.dst.len, y.src);
}

}  // namespace

struct route_stream::state {
    const rib::store& rib;
    std::function<void(pb::RouteTables&)> decorate;
    stream_limits lim;
    std::optional<rib::table_id> asked;  // listed even when empty
    std::vector<rib::route_key> keys;
    size_t sorted = 0;                          // keys[0, sorted) are sorted runs
    std::vector<std::pair<size_t, size_t>> runs;  // the rest of each run: [next, end)
    // Runs by their next key, smallest on top.
    struct later {
        const state* s;
        bool operator()(size_t a, size_t b) const {
            return listing_order(s->keys[s->runs[b].first], s->keys[s->runs[a].first]);
        }
    };
    std::priority_queue<size_t, std::vector<size_t>, later> heap{later{this}};

    state(const rib::store& r, std::function<void(pb::RouteTables&)> d, stream_limits l)
        : rib(r), decorate(std::move(d)), lim(l) {}
};

route_stream::route_stream(const rib::store& rib, const route_filter& f, std::function<void(pb::RouteTables&)> decorate,
                           stream_limits l)
    : _s(std::make_unique<state>(rib, std::move(decorate), l)) {
    if (_s->lim.routes_per_part == 0)
        _s->lim.routes_per_part = 1;
    if (_s->lim.sort_run == 0)
        _s->lim.sort_run = 1;
    _s->asked = f.table;
    auto& keys = _s->keys;
    keys.reserve(f.table || f.family ? 0 : rib.routes().size());
    for (const auto& [key, r] : rib.routes()) {
        if ((f.table && key.table != *f.table) || (f.family && key.dst.af != *f.family))
            continue;
        keys.push_back(key);
    }
}

route_stream::~route_stream() = default;

size_t route_stream::keys() const { return _s->keys.size(); }

bool route_stream::next(pb::Response& part) {
    state& s = *_s;
    pb::RouteTables& out = *part.mutable_routes();
    if (s.asked) {  // first part: the table asked for, whatever follows
        out.add_tables()->set_table(*s.asked);
        s.asked.reset();
    }
    if (s.sorted < s.keys.size()) {
        const size_t end = std::min(s.keys.size(), s.sorted + s.lim.sort_run);
        std::sort(s.keys.begin() + static_cast<ptrdiff_t>(s.sorted), s.keys.begin() + static_cast<ptrdiff_t>(end),
                  listing_order);
        s.runs.emplace_back(s.sorted, end);
        s.sorted = end;
        if (s.sorted < s.keys.size()) {
            if (s.decorate)
                s.decorate(out);
            return true;  // the next run in the next turn
        }
        for (size_t i = 0; i < s.runs.size(); ++i)
            s.heap.push(i);
    }
    size_t rendered = 0;
    while (!s.heap.empty() && rendered < s.lim.routes_per_part) {
        const size_t run = s.heap.top();
        s.heap.pop();
        const rib::route_key& k = s.keys[s.runs[run].first];
        if (const rib::route* r = s.rib.find_route(k)) {
            if (out.tables_size() == 0 || out.tables(out.tables_size() - 1).table() != k.table)
                out.add_tables()->set_table(k.table);
            render_route(s.rib, *r, *out.mutable_tables(out.tables_size() - 1)->add_routes());
            ++rendered;
        }
        if (++s.runs[run].first < s.runs[run].second)
            s.heap.push(run);
    }
    if (s.decorate)
        s.decorate(out);
    if (!s.heap.empty())
        return true;
    std::vector<rib::route_key>().swap(s.keys);  // the listing is done: its memory goes now
    return false;
}

}  // namespace mgmt
