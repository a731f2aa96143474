#include "fpm/encap_pairs.hh"

#include "fpm/decoder.hh"

namespace fpm {

void encap_pairs::on_type(nl::bytes payload, decode_ctx& ctx) {
    if (_pending == pending::type)
        ctx.report(reason::attr_encap_unpaired, "ENCAP_TYPE followed by another ENCAP_TYPE");
    const auto t = nl::get_exact<uint16_t>(payload);
    if (!t) {
        ctx.report(reason::attr_bad_len, "ENCAP_TYPE is not a u16");
        // Its nest cannot be interpreted; drop it quietly when it comes.
        _pending = pending::bad_type;
        return;
    }
    _type = *t;
    _pending = pending::type;
}

void encap_pairs::on_nest(nl::bytes payload, decode_ctx& ctx) {
    switch (_pending) {
    case pending::type:
        _pairs.push_back({_type, payload});
        break;
    case pending::bad_type:
        break;  // already counted as attr_bad_len
    case pending::none:
        ctx.report(reason::attr_encap_unpaired, "ENCAP without a preceding ENCAP_TYPE");
        break;
    }
    _pending = pending::none;
}

void encap_pairs::finish(decode_ctx& ctx) {
    if (_pending == pending::type)
        ctx.report(reason::attr_encap_unpaired, "ENCAP_TYPE without its ENCAP");
    _pending = pending::none;
}

void encap_pairs::apply(decode_ctx& ctx, rib::nexthop& nh) const {
    for (const auto& p : _pairs)
        apply_encap(p.type, p.nest, ctx, nh);
}

}  // namespace fpm
