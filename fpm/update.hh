// What the decoders produce: typed commands for the RIB, one per netlink/SONiC/protobuf message.
// Decoders are pure (bytes in, updates out); rib::store applies them.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "rib/model.hh"

namespace fpm {

// Which wire dialect an update came from. SONiC and protobuf put the VRF's ifindex where
// netlink puts the kernel table id, so a consumer that maps tables to VRFs must know.
enum class dialect : uint8_t { netlink, sonic, protobuf };

struct route_upsert {   // RTM_NEWROUTE, SONiC 1000/3000, protobuf AddRoute / SRv6LocalSID
    rib::route route;
};
struct route_delete {   // RTM_DELROUTE, SONiC 1001/3001, protobuf DeleteRoute: a route or a SID
    rib::route_key key;
};
struct nexthop_upsert { // RTM_NEWNEXTHOP
    rib::nexthop_object nh;
};
struct nexthop_delete { // RTM_DELNEXTHOP
    uint32_t id = 0;
};
struct pic_context_upsert { // SONiC 2000: same body as RTM_NEWNEXTHOP, own id space
    rib::nexthop_object nh;
};
struct pic_context_delete { // SONiC 2001
    uint32_t id = 0;
};
struct sidlist_upsert { // SONiC 4000
    std::string name;
    std::vector<rib::ip6_addr> segments;  // visiting order
};
struct sidlist_delete { // SONiC 4001
    std::string name;
};

using update_body = std::variant<route_upsert, route_delete, nexthop_upsert, nexthop_delete,
                                 pic_context_upsert, pic_context_delete, sidlist_upsert,
                                 sidlist_delete>;

struct update {
    dialect from = dialect::netlink;
    update_body body;
};

}  // namespace fpm
