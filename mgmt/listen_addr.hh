// An HTTP listen address as srv6d's config spells it (`metrics.listen`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mgmt {

struct listen_addr {
    std::string host;  // an IPv4 or IPv6 literal
    uint16_t port = 0;
};

// "127.0.0.1:9464", "[::1]:9464": the address and port; nullopt when it is neither (a name
// is refused: the endpoint binds to an address).
std::optional<listen_addr> parse_listen(const std::string& s);

}  // namespace mgmt
