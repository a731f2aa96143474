// Pairs every ENCAP_TYPE attribute with the ENCAP nest that follows it, in wire order.
// One path can carry two pairs (bgpd SRv6 VPN: MPLS then SEG6; End.B6.Encaps inline: SEG6_LOCAL
// then SEG6), so a last-wins tb[type] table would silently lose one of them.
#pragma once

#include <cstdint>
#include <vector>

#include "rib/model.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/nl_attr.hh"

namespace fpm {

class encap_pairs {
public:
    struct pair {
        uint16_t type = 0;
        nl::bytes nest;
    };

    // Feed RTA_ENCAP_TYPE/NHA_ENCAP_TYPE and RTA_ENCAP/NHA_ENCAP payloads as the walk meets them.
    void on_type(nl::bytes payload, decode_ctx& ctx);
    void on_nest(nl::bytes payload, decode_ctx& ctx);
    // After the walk: a type still waiting for its nest is counted.
    void finish(decode_ctx& ctx);

    // Hands every pair, in wire order, to apply_encap().
    void apply(decode_ctx& ctx, rib::nexthop& nh) const;

    const std::vector<pair>& pairs() const { return _pairs; }
    bool empty() const { return _pairs.empty(); }

private:
    enum class pending : uint8_t { none, type, bad_type };
    pending _pending = pending::none;
    uint16_t _type = 0;
    std::vector<pair> _pairs;
};

}  // namespace fpm
