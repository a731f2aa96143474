// What one source (srv6d's config, the kernel's VRF devices) says about a VRF, before the
// registry decides whether that claim can be bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rib/model.hh"

namespace vrf {

// Small dense id the dataplane indexes its per-VRF tables with; 0 is the default VRF.
using vrf_id = uint16_t;
constexpr vrf_id default_vrf_id = 0;
constexpr std::string_view default_vrf_name = "default";  // FRR's VRF_DEFAULT_NAME
constexpr rib::table_id default_vrf_table = rib::main_table;
constexpr size_t max_vrfs = 65536;  // every vrf_id value

// Where a binding comes from. `builtin` is the default VRF only.
enum class source : uint8_t { builtin, config, kernel };

std::string_view to_string(source s);

// A set of sources, printed "config+kernel".
class source_set {
public:
    source_set() = default;
    void add(source s) { _bits = static_cast<uint8_t>(_bits | bit(s)); }
    bool has(source s) const { return (_bits & bit(s)) != 0; }
    bool empty() const { return _bits == 0; }
    bool operator==(const source_set&) const = default;

private:
    static uint8_t bit(source s) { return static_cast<uint8_t>(1u << static_cast<unsigned>(s)); }
    uint8_t _bits = 0;
};

std::string to_string(source_set s);

// An interface enslaved to the VRF. Config names interfaces; the kernel knows both.
struct member {
    std::string name;
    uint32_t ifindex = 0;  // 0 = not known (config)
    bool operator==(const member&) const = default;
};

struct vrf_spec {
    std::string name;
    rib::table_id table = 0;
    std::vector<member> members;
    std::optional<uint32_t> dev_ifindex;  // the kernel VRF device (what SONiC sends as "table")
    bool operator==(const vrf_spec&) const = default;
};

// VRF-lite VRF names are kernel device names, so the kernel's rules apply: 1..15 bytes
// (IFNAMSIZ - 1), no '/', no whitespace, not "." or "..".
std::optional<std::string> check_ifname(std::string_view name);

// Table ids a VRF may never bind: 0 (unspecified) and the kernel's reserved 253/255.
// 254 is the default VRF's and handled by the registry. Returns why, or nullopt.
std::optional<std::string> check_table(rib::table_id t);

}  // namespace vrf
