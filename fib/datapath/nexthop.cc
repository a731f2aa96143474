#include "fib/datapath/nexthop.hh"

#include <cstring>
#include <new>

#include "fib/datapath/mem.hh"

namespace fib {

std::string_view name(nh_kind k) {
    switch (k) {
    case nh_kind::miss: return "miss";
    case nh_kind::forward: return "forward";
    case nh_kind::blackhole: return "blackhole";
    case nh_kind::unreachable: return "unreachable";
    case nh_kind::prohibit: return "prohibit";
    case nh_kind::receive: return "receive";
    case nh_kind::headend: return "headend";
    case nh_kind::local_sid: return "local_sid";
    case nh_kind::refused: return "refused";
    case nh_kind::ecmp: return "ecmp";
    }
    return "unknown";
}

std::string_view name(nh_refusal r) {
    switch (r) {
    case nh_refusal::none: return "none";
    case nh_refusal::sid_table_unbound: return "sid_table_unbound";
    case nh_refusal::sid_vrf_unknown: return "sid_vrf_unknown";
    case nh_refusal::sid_vrf_not_active: return "sid_vrf_not_active";
    case nh_refusal::sid_vrf_mismatch: return "sid_vrf_mismatch";
    case nh_refusal::sid_no_table: return "sid_no_table";
    case nh_refusal::sid_unsupported: return "sid_unsupported";
    case nh_refusal::sid_bad_flavor: return "sid_bad_flavor";
    case nh_refusal::encap_insert_unsupported: return "encap_insert_unsupported";
    case nh_refusal::encap_no_segments: return "encap_no_segments";
    case nh_refusal::encap_too_many_segments: return "encap_too_many_segments";
    case nh_refusal::encap_no_source: return "encap_no_source";
    case nh_refusal::sidlist_unknown: return "sidlist_unknown";
    }
    return "unknown";
}

// Tail layout: [encap_template] | u32 slots[slots] | ecmp_member members[members].
static_assert(sizeof(encap_template) % alignof(uint32_t) == 0);
static_assert(alignof(encap_template) <= alignof(compiled_nh));

const compiled_nh* compiled_nh::create(const nh_fields& f, const encap_template* tmpl,
                                       std::span<const ecmp_member> members) {
    const std::vector<uint32_t> slots = ecmp_slots(members);
    const size_t soff = tmpl != nullptr ? sizeof(encap_template) : 0;
    const size_t tail_bytes = soff + slots.size() * sizeof(uint32_t) + members.size() * sizeof(ecmp_member);
    const size_t bytes = sizeof(compiled_nh) + tail_bytes;
    void* mem = alloc_block(mem_kind::nexthop, bytes);
    std::memset(mem, 0, bytes);  // padding included: the checksum covers every byte
    auto* n = new (mem) compiled_nh();
    n->_bytes = static_cast<uint32_t>(bytes);
    n->_f = f;
    n->_f.has_encap = tmpl != nullptr ? 1 : 0;
    n->_f.group.slots = static_cast<uint16_t>(slots.size());
    n->_f.group.members = static_cast<uint16_t>(members.size());
    auto* t = const_cast<uint8_t*>(n->tail());
    if (tmpl != nullptr)
        std::memcpy(t, tmpl, sizeof(encap_template));
    if (!slots.empty())
        std::memcpy(t + soff, slots.data(), slots.size() * sizeof(uint32_t));
    if (!members.empty())
        std::memcpy(t + soff + slots.size() * sizeof(uint32_t), members.data(), members.size() * sizeof(ecmp_member));
    n->_check = n->checksum();
    // The magic last: a block is "live" only once everything else is in place.
    n->_magic = nh_live_magic;
    return n;
}

void compiled_nh::destroy(const compiled_nh* n) noexcept {
    if (n)
        free_block(mem_kind::nexthop, const_cast<compiled_nh*>(n), n->_bytes);
}

std::span<const uint32_t> compiled_nh::slots() const {
    const auto* p = reinterpret_cast<const uint32_t*>(tail() + slots_off());
    return {p, _f.group.slots};
}

std::span<const ecmp_member> compiled_nh::members() const {
    const auto* p = reinterpret_cast<const ecmp_member*>(tail() + slots_off() +
                                                         sizeof(uint32_t) * _f.group.slots);
    return {p, _f.group.members};
}

uint32_t compiled_nh::checksum() const {
    // FNV-1a over everything after the magic and the checksum itself.
    const auto* p = reinterpret_cast<const uint8_t*>(this);
    const size_t n = _bytes < 8 || _bytes > (1u << 20) ? 8 : _bytes;
    uint32_t h = 2166136261u;
    for (size_t i = 8; i < n; ++i) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

bool compiled_nh::intact() const { return _magic == nh_live_magic && _check == checksum(); }

}  // namespace fib
